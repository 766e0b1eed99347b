/**
 * What the black-box suites need to know about the deployment under test, from the environment:
 *   BASE_URL        the edge, e.g. http://127.0.0.1:8080
 *   ADMIN_EMAIL     an ADMIN account's email and password (the operator's ADMIN_* settings)
 *   ADMIN_PASSWORD
 *   JWT_SECRET      the deployment's HS512 key, to forge expired and wrongly signed tokens
 *   CORS_ALLOWED_ORIGINS  the deployment's setting: its first origin is the browser app the
 *                   suite calls from (an origin, not "*")
 */
export interface AcceptanceEnvironment {
  readonly baseUrl: string;
  readonly adminEmail: string;
  readonly adminPassword: string;
  readonly jwtSecret: string;
  /** An origin the deployment lets call it from a browser (CORS). */
  readonly allowedOrigin: string;
}

let cached: AcceptanceEnvironment | undefined;

export function acceptanceEnvironment(): AcceptanceEnvironment {
  if (cached !== undefined) return cached;
  const missing = ["BASE_URL", "ADMIN_EMAIL", "ADMIN_PASSWORD", "JWT_SECRET", "CORS_ALLOWED_ORIGINS"].filter(
    (name) => !process.env[name],
  );
  if (missing.length > 0) {
    throw new Error(`acceptance suites need ${missing.join(", ")} (npm test sets them; see README "Tests")`);
  }
  const allowedOrigin = (process.env["CORS_ALLOWED_ORIGINS"] ?? "").split(",")[0]?.trim() ?? "";
  if (!/^https?:\/\//.test(allowedOrigin)) {
    throw new Error(
      `acceptance suites need CORS_ALLOWED_ORIGINS to start with an origin, got "${allowedOrigin}"`,
    );
  }
  cached = {
    baseUrl: process.env["BASE_URL"] ?? "",
    adminEmail: process.env["ADMIN_EMAIL"] ?? "",
    adminPassword: process.env["ADMIN_PASSWORD"] ?? "",
    jwtSecret: process.env["JWT_SECRET"] ?? "",
    allowedOrigin,
  };
  return cached;
}

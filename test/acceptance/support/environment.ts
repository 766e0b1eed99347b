/**
 * What the black-box suites need to know about the deployment under test, from the environment:
 *   BASE_URL        the edge, e.g. http://127.0.0.1:8080
 *   ADMIN_EMAIL     an ADMIN account's email and password (the operator's ADMIN_* settings)
 *   ADMIN_PASSWORD
 *   JWT_SECRET      the deployment's HS512 key, to forge expired and wrongly signed tokens
 */
export interface AcceptanceEnvironment {
  readonly baseUrl: string;
  readonly adminEmail: string;
  readonly adminPassword: string;
  readonly jwtSecret: string;
}

let cached: AcceptanceEnvironment | undefined;

export function acceptanceEnvironment(): AcceptanceEnvironment {
  if (cached !== undefined) return cached;
  const missing = ["BASE_URL", "ADMIN_EMAIL", "ADMIN_PASSWORD", "JWT_SECRET"].filter(
    (name) => !process.env[name],
  );
  if (missing.length > 0) {
    throw new Error(`acceptance suites need ${missing.join(", ")} (npm test sets them; see README "Tests")`);
  }
  cached = {
    baseUrl: process.env["BASE_URL"] ?? "",
    adminEmail: process.env["ADMIN_EMAIL"] ?? "",
    adminPassword: process.env["ADMIN_PASSWORD"] ?? "",
    jwtSecret: process.env["JWT_SECRET"] ?? "",
  };
  return cached;
}

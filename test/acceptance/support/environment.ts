/**
 * What the black-box suites need to know about the deployment under test, from the environment:
 *   BASE_URL        the edge, e.g. http://127.0.0.1:8080
 *   ADMIN_EMAIL     an ADMIN account's email and password (the operator's ADMIN_* settings)
 *   ADMIN_PASSWORD
 *   JWT_SECRET      the deployment's HS512 key, to forge expired and wrongly signed tokens
 *   CORS_ALLOWED_ORIGINS  the deployment's setting, for the CORS tests: its first entry is the
 *                   origin they call from (so an origin, not "*")
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
    throw new Error(
      `acceptance suites need ${missing.join(", ")} (npm test sets them; see docs/developing.md, "Tests")`,
    );
  }
  cached = {
    baseUrl: process.env["BASE_URL"] ?? "",
    adminEmail: process.env["ADMIN_EMAIL"] ?? "",
    adminPassword: process.env["ADMIN_PASSWORD"] ?? "",
    jwtSecret: process.env["JWT_SECRET"] ?? "",
  };
  return cached;
}

/**
 * The origin the CORS tests call from: the first of the deployment's CORS_ALLOWED_ORIGINS. Only
 * those tests need it, so a deployment that allows no origin fails them alone, saying why.
 */
export function allowedOrigin(): string {
  const first = (process.env["CORS_ALLOWED_ORIGINS"] ?? "").split(",")[0]?.trim() ?? "";
  if (!/^https?:\/\//.test(first)) {
    throw new Error(
      `the CORS tests need the deployment's CORS_ALLOWED_ORIGINS, starting with an origin, got "${first}" (npm test sets it; see docs/developing.md, "Tests")`,
    );
  }
  return first;
}

/**
 * `address` (127.0.0.x) as a client's own address towards the deployment: only a deployment on
 * loopback can be called from several addresses of one machine (Linux binds any 127.0.0.0/8
 * address), which the login throttle's tests need. Elsewhere they fail, saying why.
 */
export function onLoopback(address: string): string {
  const host = new URL(acceptanceEnvironment().baseUrl).hostname;
  if (!/^127\.\d+\.\d+\.\d+$/.test(host) && host !== "localhost") {
    throw new Error(
      `the login throttle tests call from ${address}, another loopback address: BASE_URL must be on 127.0.0.0/8, got ${host}`,
    );
  }
  return address;
}

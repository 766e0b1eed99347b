/**
 * Which browser apps on other origins may call the API (CORS), read once at start
 * (docs/configuration.md). Both edges follow the same settings: the local edge through cors.ts, Envoy
 * through its own CORS filter (envoy/src/cors.ts). Why each choice: ADR 0013.
 */
import { EnvReader, type Env, declareSettings, type Setting } from "@commerce/runtime/config";

export interface CorsSettings {
  /**
   * Origins whose scripts may read the API's answers, exactly as browsers send them
   * (`https://shop.example.com`), or `["*"]` for any origin; none by default.
   */
  readonly allowedOrigins: readonly string[];
  /** Request headers a browser may send besides `corsRequestHeaders`, lowercase. */
  readonly allowedHeaders: readonly string[];
  /** How long a browser may reuse the answer to a preflight. */
  readonly maxAgeSeconds: number;
}

/** Stands for every origin in `allowedOrigins`. */
export const anyOrigin = "*";

/** What every API call may carry: the bearer token and the JSON body's type. */
export const corsRequestHeaders: readonly string[] = ["authorization", "content-type"];

/**
 * Response headers a browser app may read besides the safelisted ones: the methods of a 405
 * (`allow`), the wait of a 429 (`retry-after`) and the scheme of a 401 (`www-authenticate`).
 */
export const corsExposedHeaders: readonly string[] = ["allow", "retry-after", "www-authenticate"];

/** Read by the local edge (embedded mode) and, in the multi-process topology, for its Envoy. */
export const corsSettings = declareSettings({
  CORS_ALLOWED_ORIGINS: {
    whenUnset: "none",
    meaning:
      "Origins whose browser apps may call the API, as browsers send them (`https://a.example,…`), or `*` alone",
    readBy: ["embedded", "envoy"],
  },
  CORS_ALLOWED_HEADERS: {
    whenUnset: "none",
    meaning: "Request headers a browser app may send besides `authorization` and `content-type`",
    readBy: ["embedded", "envoy"],
  },
  CORS_MAX_AGE: {
    default: "10m",
    meaning: "How long a browser reuses a preflight's answer (0 to 1d)",
    readBy: ["embedded", "envoy"],
  },
});

/** The settings' names, for whoever passes them on (the multi-process topology). */
export const corsSettingNames = [
  corsSettings.CORS_ALLOWED_ORIGINS.name,
  corsSettings.CORS_ALLOWED_HEADERS.name,
  corsSettings.CORS_MAX_AGE.name,
] as const;
export type CorsSettingName = (typeof corsSettingNames)[number];

/** No origin allowed: the default, and the generator's. */
export const noCors: CorsSettings = { allowedOrigins: [], allowedHeaders: [], maxAgeSeconds: 600 };

export function readCorsSettings(env: EnvReader): CorsSettings {
  return {
    allowedOrigins: readOrigins(env),
    allowedHeaders: readHeaders(env),
    maxAgeSeconds: env.duration(corsSettings.CORS_MAX_AGE, 0, 86_400, 'from 0 to 1d such as "600", "10m"'),
  };
}

/** The settings from variables alone (the topology's Envoy); throws a ConfigError on bad ones. */
export function corsSettingsOf(env: Env): CorsSettings {
  const reader = new EnvReader(env, { process: "envoy" });
  return reader.finish(readCorsSettings(reader));
}

function listOf(env: EnvReader, setting: Setting): string[] {
  return (env.string(setting) ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

function readOrigins(env: EnvReader): string[] {
  const origins = listOf(env, corsSettings.CORS_ALLOWED_ORIGINS);
  if (origins.includes(anyOrigin) && origins.length > 1) {
    env.problem(
      `CORS_ALLOWED_ORIGINS must be "*" alone or a list of origins, got "${env.raw(corsSettings.CORS_ALLOWED_ORIGINS)}"`,
    );
  }
  for (const origin of origins) {
    if (origin !== anyOrigin && !isOrigin(origin)) {
      env.problem(
        `CORS_ALLOWED_ORIGINS must list origins as browsers send them, like https://shop.example.com ` +
          `(http or https, lowercase host, a port only if not the default, no path), got "${origin}"`,
      );
    }
  }
  return [...new Set(origins)];
}

/**
 * An origin as a browser serializes it in the `Origin` header: the exact form both edges compare
 * with. `null` (sandboxed and file documents) is no origin anyone can be trusted as.
 */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === "https:" || url.protocol === "http:") &&
      url.origin === text &&
      // A DNS name or an address: no wildcard, nothing a browser would not send.
      /^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)
    );
  } catch {
    return false;
  }
}

function readHeaders(env: EnvReader): string[] {
  const headers = listOf(env, corsSettings.CORS_ALLOWED_HEADERS).map((header) => header.toLowerCase());
  for (const header of headers) {
    // Letters, digits and hyphens only: every header name in use, and nothing that needs quoting
    // in Envoy's configuration.
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(header)) {
      env.problem(
        `CORS_ALLOWED_HEADERS must list header names of letters, digits and hyphens, like x-request-id, got "${header}"`,
      );
    }
  }
  return [...new Set(headers)].filter((header) => !corsRequestHeaders.includes(header));
}

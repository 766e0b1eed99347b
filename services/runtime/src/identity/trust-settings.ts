/**
 * The credentials a service process reads (ADR 0105): the digest of the edge's credential for
 * this service (`EDGE_CREDENTIAL_SHA256`), the digests of its callers' credentials
 * (`PEER_CALLERS_SHA256`), and the credential it presents to each peer it calls (beside each
 * address, `<PEER>_SERVICE_CREDENTIAL`, server/peer-addresses.ts). It never reads the secrets
 * they are derived from: only embedded mode, which holds every hop, does.
 */
import type { EnvReader } from "../config/env-reader.js";
import { declareSettings, serviceProcesses, type ServiceProcessName } from "../config/setting.js";
import { peerCalls } from "../server/peer-addresses.js";
import type { TrustAnchors } from "./request-trust.js";

/** Shortest accepted secret: 32 characters of a base64url alphabet carry 192 bits. */
export const minSecretLength = 32;

/**
 * The service processes the edge calls: every one but the analytics stream processor, which
 * serves no API (scripts/cluster/service-catalog.ts says the same with `routed`).
 */
export const edgeDestinations: readonly ServiceProcessName[] = serviceProcesses.filter(
  (name) => name !== "analytics-processor",
);

/** The service processes some peer calls: those that have a caller in the call graph. */
export const peerDestinations: readonly ServiceProcessName[] = serviceProcesses.filter((name) =>
  peerCalls.some((call) => call.callee === name),
);

/** The processes that call `callee`, in the call graph's order. */
export function callersOf(callee: string): ServiceProcessName[] {
  return peerCalls.filter((call) => call.callee === callee).map((call) => call.caller);
}

export const trustSettings = declareSettings({
  EDGE_SECRET: {
    whenUnset: "generated",
    meaning: `The secret the edge's credential for each service is derived from (at least ${minSecretLength} characters)`,
    readBy: ["embedded"],
  },
  PEER_SECRET: {
    whenUnset: "generated",
    meaning: `The secret each caller's credential for each service it calls is derived from (at least ${minSecretLength} characters)`,
    readBy: ["embedded"],
  },
  EDGE_CREDENTIAL_SHA256: {
    whenUnset: "required",
    meaning: "Hex SHA-256 of the edge's credential for this service (which no other service accepts)",
    readBy: edgeDestinations,
  },
  PEER_CALLERS_SHA256: {
    whenUnset: "required",
    meaning:
      "Its callers and the hex SHA-256 of each one's credential here: `<caller>=<hex>,…`, each caller once",
    readBy: peerDestinations,
  },
});

/** What a service process holds of the trust between the hops it takes part in. */
export interface ServiceCredentials extends TrustAnchors {
  /** Callee → the credential this service presents there. */
  readonly peerCredentials: ReadonlyMap<string, string>;
}

const hexDigest = /^[0-9a-f]{64}$/;

/** Reads the credentials of the process `service` (its reader is that process's). */
export function readServiceCredentials(env: EnvReader, service: ServiceProcessName): ServiceCredentials {
  const why = "(ADR 0105)";
  const { EDGE_CREDENTIAL_SHA256, PEER_CALLERS_SHA256 } = trustSettings;
  let edgeCredentialSha256: Uint8Array | undefined;
  if (edgeDestinations.includes(service)) {
    const digest = env.required(EDGE_CREDENTIAL_SHA256, why).toLowerCase();
    if (digest !== "" && !hexDigest.test(digest)) {
      env.problem(
        `${EDGE_CREDENTIAL_SHA256.name} must be the SHA-256 of the edge's credential for ${service} as 64 hex digits`,
      );
    }
    edgeCredentialSha256 = Buffer.from(digest, "hex");
  }
  const callers = new Map<string, Uint8Array>();
  if (peerDestinations.includes(service)) {
    const expected = callersOf(service);
    const given = env.required(PEER_CALLERS_SHA256, why);
    const entries = given === "" ? [] : given.split(",").map((entry) => entry.trim().split("="));
    for (const [caller = "", digest = "", ...rest] of entries) {
      if (!expected.includes(caller as ServiceProcessName) || callers.has(caller)) {
        env.problem(
          `${PEER_CALLERS_SHA256.name} names "${caller}", which is not a caller of ${service} or is named twice (its callers: ${expected.join(", ")})`,
        );
      } else if (!hexDigest.test(digest.toLowerCase()) || rest.length > 0) {
        env.problem(`${PEER_CALLERS_SHA256.name} must give ${caller}'s digest as ${caller}=<64 hex digits>`);
      } else {
        callers.set(caller, Buffer.from(digest, "hex"));
      }
    }
    const missing = expected.filter((caller) => !callers.has(caller));
    if (given !== "" && missing.length > 0) {
      env.problem(
        `${PEER_CALLERS_SHA256.name} lacks the digest of ${missing.join(" and ")}, which call ${service}`,
      );
    }
  }
  const peerCredentials = new Map<string, string>();
  for (const call of peerCalls.filter((c) => c.caller === service)) {
    const credential =
      env.headerSecret(call.credential, minSecretLength) ?? env.required(call.credential, why);
    peerCredentials.set(call.callee, credential);
  }
  return { edgeCredentialSha256, callers, peerCredentials };
}

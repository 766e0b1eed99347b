/**
 * A service process's credentials derived from the deployment's two secrets, where one place
 * holds those secrets for everyone: embedded mode (one process) and whatever starts the
 * processes of a deployment on one machine (the multi-process topology, the image proof, the
 * benches). What each process is given is only its own (ADR 0105): the digest of the edge's
 * credential for it, its callers' digests, and its credential for each peer it calls.
 */
import { peerCalls } from "../server/peer-addresses.js";
import { credentialSha256, edgeCredential, peerCredential } from "./hop-credentials.js";
import {
  callersOf,
  edgeDestinations,
  peerDestinations,
  trustSettings,
  type ServiceCredentials,
} from "./trust-settings.js";

// As names: any process may ask, and a name not listed holds nothing of that kind.
const edgeDestinationNames: readonly string[] = edgeDestinations;
const peerDestinationNames: readonly string[] = peerDestinations;

/** The deployment's two secrets (`EDGE_SECRET`, `PEER_SECRET`). */
export interface DeploymentSecrets {
  readonly edgeSecret: string;
  readonly peerSecret: string;
}

/**
 * What the process `service` holds, as readServiceCredentials reads it from
 * serviceTrustEnvironment; nothing for a name that is no service process (the `web` process).
 */
export function deriveServiceCredentials(service: string, secrets: DeploymentSecrets): ServiceCredentials {
  const digest = (credential: string): Uint8Array => Buffer.from(credentialSha256(credential), "hex");
  return {
    edgeCredentialSha256: edgeDestinationNames.includes(service)
      ? digest(edgeCredential(secrets.edgeSecret, service))
      : undefined,
    callers: new Map(
      callersOf(service).map((caller) => [
        caller,
        digest(peerCredential(secrets.peerSecret, caller, service)),
      ]),
    ),
    peerCredentials: new Map(
      peerCalls
        .filter((call) => call.caller === service)
        .map((call) => [call.callee, peerCredential(secrets.peerSecret, service, call.callee)]),
    ),
  };
}

/** The variables that give the process `service` its credentials (and nothing of another's). */
export function serviceTrustEnvironment(service: string, secrets: DeploymentSecrets): Record<string, string> {
  const env: Record<string, string> = {};
  if (edgeDestinationNames.includes(service)) {
    env[trustSettings.EDGE_CREDENTIAL_SHA256.name] = credentialSha256(
      edgeCredential(secrets.edgeSecret, service),
    );
  }
  if (peerDestinationNames.includes(service)) {
    env[trustSettings.PEER_CALLERS_SHA256.name] = callersOf(service)
      .map((caller) => `${caller}=${credentialSha256(peerCredential(secrets.peerSecret, caller, service))}`)
      .join(",");
  }
  for (const call of peerCalls.filter((c) => c.caller === service)) {
    env[call.credential.name] = peerCredential(secrets.peerSecret, service, call.callee);
  }
  return env;
}

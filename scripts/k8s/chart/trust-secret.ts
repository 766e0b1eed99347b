/**
 * The keys of the chart's `trust` Secret that its pods mount (ADR 0107), derived from the
 * deployment's two secrets as the runtime derives them (services/runtime/src/identity/
 * hop-credentials.ts) and as the chart does (helm/templates/_helpers.tpl, `cp.trustDerived`):
 *   edge-credential.<service>          Envoy's credential for a routed service
 *   edge-credential-sha256.<service>   what that service holds (EDGE_CREDENTIAL_SHA256)
 *   peer-credential.<caller>.<callee>  what a caller presents to a peer (<PEER>_SERVICE_CREDENTIAL)
 *   peer-callers-sha256.<callee>       what a called service holds (PEER_CALLERS_SHA256)
 * An operator who brings the Secret (`secrets.trust.existingSecret`) makes it with
 * `npm run chart:trust-secret` and keeps the two secrets elsewhere: no pod needs them.
 */
import { stringify } from "yaml";
import {
  credentialSha256,
  edgeCredential,
  peerCredential,
  type DeploymentSecrets,
} from "@commerce/runtime/identity";
import { deployableServices } from "../../cluster/service-catalog.js";

export function trustSecretData(secrets: DeploymentSecrets): Record<string, string> {
  const data: Record<string, string> = {};
  for (const service of deployableServices.filter((s) => s.routed)) {
    const credential = edgeCredential(secrets.edgeSecret, service.name);
    data[`edge-credential.${service.name}`] = credential;
    data[`edge-credential-sha256.${service.name}`] = credentialSha256(credential);
  }
  for (const callee of deployableServices) {
    const callers = deployableServices.filter((caller) => Object.values(caller.peers).includes(callee.name));
    for (const caller of callers) {
      data[`peer-credential.${caller.name}.${callee.name}`] = peerCredential(
        secrets.peerSecret,
        caller.name,
        callee.name,
      );
    }
    if (callers.length > 0) {
      data[`peer-callers-sha256.${callee.name}`] = callers
        .map(
          (caller) =>
            `${caller.name}=${credentialSha256(data[`peer-credential.${caller.name}.${callee.name}`] ?? "")}`,
        )
        .join(",");
    }
  }
  return data;
}

/** The Secret `name` holding `trustSecretData(secrets)`, as YAML for `kubectl apply -f -`. */
export function trustSecretManifest(name: string, secrets: DeploymentSecrets): string {
  const data = Object.fromEntries(
    Object.entries(trustSecretData(secrets)).map(([key, value]) => [
      key,
      Buffer.from(value).toString("base64"),
    ]),
  );
  return stringify({ apiVersion: "v1", kind: "Secret", metadata: { name }, type: "Opaque", data });
}

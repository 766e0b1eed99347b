/**
 * `npm run chart:trust-secret -- <name>`: prints the `trust` Secret `<name>` for
 * `secrets.trust.existingSecret` (trust-secret.ts), derived from EDGE_SECRET and PEER_SECRET
 * in the environment, or from new random ones (then printed to stderr, to keep): pipe it into
 * `kubectl apply -n <namespace> -f -`.
 */
import { randomBytes } from "node:crypto";
import { minSecretLength } from "@commerce/runtime/identity";
import { trustSecretManifest } from "./trust-secret.js";

const [name] = process.argv.slice(2);
if (name === undefined || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name)) {
  process.stderr.write(
    "usage: npm run chart:trust-secret -- <secret name> (EDGE_SECRET, PEER_SECRET optional)\n",
  );
  process.exit(2);
}
const secretOf = (variable: string): string => {
  const given = process.env[variable] ?? "";
  if (given === "") {
    const made = randomBytes(32).toString("base64url");
    process.stderr.write(`${variable}=${made}   (generated: keep it to derive the same Secret again)\n`);
    return made;
  }
  if (!/^[\x21-\x7e]+$/.test(given) || given.length < minSecretLength) {
    process.stderr.write(
      `${variable} must be at least ${minSecretLength} visible ASCII characters without spaces\n`,
    );
    process.exit(2);
  }
  return given;
};
process.stdout.write(
  trustSecretManifest(name, { edgeSecret: secretOf("EDGE_SECRET"), peerSecret: secretOf("PEER_SECRET") }),
);

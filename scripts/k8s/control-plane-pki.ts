/**
 * The certificates and keys of a private control plane, made fresh for each one with openssl
 * (Node can make keys but not certificates): a CA, the API server's serving certificate for
 * loopback, an admin client certificate in `system:masters` (the kubeconfig's identity, which
 * the other components share: they run as the cluster's owner, as in a single-node test cluster),
 * and the key pair that signs service-account tokens. P-256 keys: made in milliseconds.
 */
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

export interface ControlPlanePki {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPublicKey: string;
}

/** The names the API server answers to: loopback, and the in-cluster names of its Service. */
const serverNames = [
  "IP:127.0.0.1",
  "DNS:localhost",
  "DNS:kubernetes",
  "DNS:kubernetes.default",
  "DNS:kubernetes.default.svc",
  "DNS:kubernetes.default.svc.cluster.local",
];

const runOpenssl = promisify(execFile);

async function openssl(args: readonly string[]): Promise<void> {
  try {
    await runOpenssl("openssl", args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`openssl ${args[0] ?? ""} failed: ${stderr.trim() || String(error)}`, { cause: error });
  }
}

const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** Writes a new PKI into `dir` and returns the paths. */
export async function createControlPlanePki(dir: string): Promise<ControlPlanePki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(dir, name);
  const pki: ControlPlanePki = {
    caCert: file("ca.crt"),
    serverCert: file("apiserver.crt"),
    serverKey: file("apiserver.key"),
    adminCert: file("admin.crt"),
    adminKey: file("admin.key"),
    serviceAccountKey: file("service-account.key"),
    serviceAccountPublicKey: file("service-account.pub"),
  };
  const caKey = file("ca.key");
  await openssl([
    "req",
    "-x509",
    "-new",
    ...newKey,
    "-keyout",
    caKey,
    "-out",
    pki.caCert,
    "-subj",
    "/CN=commerce-platform-test-ca",
    "-days",
    "3650",
  ]);
  const issue = (subject: string, cert: string, key: string, extensions: readonly string[]) =>
    openssl([
      "req",
      "-x509",
      "-new",
      ...newKey,
      "-keyout",
      key,
      "-out",
      cert,
      "-subj",
      subject,
      "-days",
      "365",
      "-CA",
      pki.caCert,
      "-CAkey",
      caKey,
      "-addext",
      "basicConstraints=critical,CA:FALSE",
      ...extensions.flatMap((extension) => ["-addext", extension]),
    ]);
  await Promise.all([
    issue("/CN=kube-apiserver", pki.serverCert, pki.serverKey, [
      "extendedKeyUsage=serverAuth",
      `subjectAltName=${serverNames.join(",")}`,
    ]),
    issue("/O=system:masters/CN=commerce-platform-admin", pki.adminCert, pki.adminKey, [
      "extendedKeyUsage=clientAuth",
    ]),
  ]);
  const serviceAccount = generateKeyPairSync("ec", { namedCurve: "P-256" });
  await writeFile(pki.serviceAccountKey, serviceAccount.privateKey.export({ type: "pkcs8", format: "pem" }), {
    mode: 0o600,
  });
  await writeFile(
    pki.serviceAccountPublicKey,
    serviceAccount.publicKey.export({ type: "spki", format: "pem" }),
  );
  return pki;
}

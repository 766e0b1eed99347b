import { expect } from "chai";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { edgeCredential, serviceTrustEnvironment } from "@commerce/runtime/identity";
import { deployableServices } from "../../cluster/service-catalog.js";
import { trustSecretData } from "./trust-secret.js";

const run = promisify(execFile);
const main = join(import.meta.dirname, "trust-secret-main.ts");
const secrets = { edgeSecret: "e".repeat(40), peerSecret: "p".repeat(40) };

describe("npm run chart:trust-secret", function () {
  this.timeout(60_000);

  it("prints a Secret whose keys give each service exactly what the topology gives its process", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", main, "shop-trust"], {
      env: { PATH: process.env["PATH"], EDGE_SECRET: secrets.edgeSecret, PEER_SECRET: secrets.peerSecret },
    });
    const manifest = parse(stdout) as {
      kind: string;
      metadata: { name: string };
      data: Record<string, string>;
    };
    expect([manifest.kind, manifest.metadata.name]).to.deep.equal(["Secret", "shop-trust"]);
    const data = Object.fromEntries(
      Object.entries(manifest.data).map(([key, value]) => [
        key,
        Buffer.from(value, "base64").toString("utf8"),
      ]),
    );
    expect(data).to.deep.equal(trustSecretData(secrets));
    // Neither secret is in it: no pod needs them.
    expect(Object.values(data)).to.not.include(secrets.edgeSecret).and.not.include(secrets.peerSecret);
    expect(data["edge-credential.order"]).to.equal(edgeCredential(secrets.edgeSecret, "order"));
    for (const service of deployableServices.filter((s) => s.kind === "service")) {
      const env = serviceTrustEnvironment(service.name, secrets);
      if (env["EDGE_CREDENTIAL_SHA256"] !== undefined) {
        expect(data[`edge-credential-sha256.${service.name}`]).to.equal(env["EDGE_CREDENTIAL_SHA256"]);
      }
      for (const [variable, peer] of Object.entries(service.peers)) {
        expect(data[`peer-credential.${service.name}.${String(peer)}`]).to.equal(
          env[variable.replace(/_URL$/, "_CREDENTIAL")],
        );
      }
      if (env["PEER_CALLERS_SHA256"] !== undefined) {
        expect(data[`peer-callers-sha256.${service.name}`]?.split(",").sort()).to.deep.equal(
          env["PEER_CALLERS_SHA256"].split(",").sort(),
        );
      }
    }
  });

  it("refuses a short secret and a missing name, with exit 2", async () => {
    for (const [args, env] of [
      [["shop-trust"], { EDGE_SECRET: "short" }],
      [[], {}],
    ] as const) {
      const failed = await run(process.execPath, ["--import", "tsx", main, ...args], {
        env: { PATH: process.env["PATH"], ...env },
      }).then(
        () => undefined,
        (error: unknown) => error as { code: number },
      );
      expect(failed?.code, JSON.stringify(args)).to.equal(2);
    }
  });
});

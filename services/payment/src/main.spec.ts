/**
 * The Payment service as its own process refuses to start unless its configuration chose a
 * gateway: a real one or, explicitly, the sandbox (ADR 0117). Everything else it reads is valid
 * here, so the refusal is that choice's alone.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { serviceTrustEnvironment } from "@commerce/runtime/identity";
import { noGatewayMessage } from "./payment-settings.js";

const entry = join(import.meta.dirname, "main.ts");

/** Runs the entry with exactly `env` (and a PATH); resolves with its exit code and output. */
function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", entry],
      { env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env }, timeout: 60_000 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe("the Payment process (services/payment/src/main.ts) and its gateway", function () {
  this.timeout(90_000);
  let dataDir: string;
  let valid: Record<string, string>;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "payment-main-"));
    // A valid process in every other respect; nothing listens at these addresses, and nothing
    // is reached before the configuration is read.
    valid = {
      HOST: "127.0.0.1",
      PORT: "0",
      DATA_DIR: dataDir,
      KAFKA_BROKERS: "127.0.0.1:9",
      ORDER_SERVICE_URL: "http://127.0.0.1:9",
      ...serviceTrustEnvironment("payment", { edgeSecret: "e".repeat(32), peerSecret: "p".repeat(32) }),
      PAYMENT_KEY_SECRET: "k".repeat(32),
      PAYMENT_WEBHOOK_SECRET: "w".repeat(32),
    };
  });

  after(() => rm(dataDir, { recursive: true, force: true }));

  it("does not start without a gateway or PAYMENT_SANDBOX: exit 2, saying what to set", async () => {
    for (const sandbox of [{}, { PAYMENT_SANDBOX: "false" }]) {
      const { code, stdout, stderr } = await run({ ...valid, ...sandbox });
      expect(stderr).to.equal(`payment: invalid configuration:\n  - ${noGatewayMessage}\n`);
      expect(code, stderr).to.equal(2);
      expect(stdout).to.equal("");
    }
  });

  it("does not start with a gateway and PAYMENT_SANDBOX=true both: exit 2", async () => {
    const { code, stderr } = await run({
      ...valid,
      PAYMENT_GATEWAY_URL: "https://gateway.example.test",
      PAYMENT_KEY_ID: "rzp_test_1",
      PAYMENT_SANDBOX: "true",
    });
    expect(stderr).to.equal(
      "payment: invalid configuration:\n  - PAYMENT_GATEWAY_URL and PAYMENT_SANDBOX=true exclude each other: payments go to one gateway (unset PAYMENT_SANDBOX to take them at the gateway)\n",
    );
    expect(code, stderr).to.equal(2);
  });
});

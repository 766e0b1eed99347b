/**
 * The sandbox checkout behind Envoy where a real gateway takes the payments (ADR 0117): Envoy
 * routes the contract's sandbox path to the Payment service like any other, and the real
 * Payment module, configured with a gateway, answers it as a path that does not exist. So a
 * signed-in customer gets exactly the 404 of an unknown path, and no payment moves. (The local
 * edge's side is test/hosted-checkout, whose platform has a gateway configured.)
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRouterTransport } from "@connectrpc/connect";
import { expect } from "chai";
import { SignJWT } from "jose";
import { buildPaymentService } from "@commerce/payment";
import { createEmbeddedBus, type EventBus } from "@commerce/runtime/events";
import {
  createDestinationTrust,
  edgeCredential,
  noRevokedAccounts,
  sha256,
} from "@commerce/runtime/identity";
import { createLogger } from "@commerce/runtime/logging";
import { createServiceHost, type ServiceHost, type ServiceModule } from "@commerce/runtime/server";
import { createEmbeddedStoreProvider, type StoreProvider } from "@commerce/runtime/store";
import { noTelemetry } from "@commerce/runtime/telemetry";
import { startEnvoyProcess, type EnvoyProcess } from "#envoy/envoy-process.js";

const jwtSecret = "s".repeat(64);
const edgeSecret = "the-edge-credential-of-this-test";

function customerToken(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: "CUSTOMER", uid: 7 })
    .setProtectedHeader({ alg: "HS512" })
    .setSubject("asha@example.test")
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(jwtSecret));
}

describe("Envoy → the Payment service with a gateway configured: the sandbox checkout is not there", function () {
  this.timeout(60_000);
  let dir: string;
  let stores: StoreProvider;
  let bus: EventBus;
  let payment: ServiceModule;
  let host: ServiceHost;
  let envoy: EnvoyProcess;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "sandbox-off-"));
    const logger = createLogger("silent", "payment");
    stores = createEmbeddedStoreProvider({ dataDir: join(dir, "documents") });
    bus = await createEmbeddedBus({ dataDir: join(dir, "events"), logger });
    payment = await buildPaymentService(
      {
        logger,
        store: await stores.open("commerce_payment"),
        bus,
        // The Order service is never called here.
        transport: createRouterTransport(() => undefined),
        clock: () => new Date(),
        telemetry: noTelemetry.forService("payment"),
      },
      {
        currency: "INR",
        keySecret: "k".repeat(32),
        webhookSecret: "w".repeat(32),
        gateway: { kind: "http", baseUrl: "https://gateway.example.test", keyId: "rzp_test_1" },
      },
    );
    host = createServiceHost({
      routes: [payment],
      logger,
      maxBodyBytes: 1 << 20,
      trust: createDestinationTrust(payment.services, {
        edgeCredentialSha256: sha256(edgeCredential(edgeSecret, "payment")),
        callers: new Map(),
      }),
      revoked: noRevokedAccounts,
      isReady: () => true,
    });
    await payment.start();
    const port = await host.listen(0, "127.0.0.1");
    envoy = await startEnvoyProcess({
      upstreams: new Map([["payment", [{ host: "127.0.0.1", port }]]]),
      secrets: { jwtSecret, edgeSecret },
    });
  });

  after(async () => {
    await envoy.stop();
    await host.close(100);
    await payment.stop();
    await bus.close();
    await stores.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers a signed-in customer's checkout 404 with the body of an unknown path", async () => {
    const headers = { authorization: `Bearer ${await customerToken()}`, "content-type": "application/json" };
    const unknown = await fetch(`${envoy.baseUrl}/api/payments/nothing-here`, { method: "POST", headers });
    const checkout = await fetch(`${envoy.baseUrl}/api/payments/sandbox/checkout`, {
      method: "POST",
      headers,
      body: JSON.stringify({ providerOrderId: "order_Lq8Hk3nWz0pT5v", outcome: "paid" }),
    });
    const noRoute = { status: 404, code: "NOT_FOUND", message: "no route for this path" };
    expect(unknown.status).to.equal(404);
    expect(await unknown.json()).to.deep.equal(noRoute);
    expect(checkout.status).to.equal(404);
    expect(checkout.headers.get("content-type")).to.equal("application/json");
    expect(await checkout.json()).to.deep.equal(noRoute);
  });
});

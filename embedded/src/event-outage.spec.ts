/**
 * A Kafka outage delays events, never loses them (ADR 0037): with the broker stopped, the
 * platform keeps answering and records every event in its outbox; once the broker is back,
 * every event is delivered and every effect (here: the notifications) happens exactly once.
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startKafka, type KafkaInstance } from "../../scripts/infra/kafka.js";
import { createLogger } from "@commerce/runtime/logging";
import { eventually } from "@commerce/runtime/testing";
import { loadEmbeddedConfig } from "./embedded-config.js";
import { startPlatform, type RunningPlatform } from "./embedded-platform.js";

interface Notification {
  readonly eventType: string;
  readonly message: string;
}

describe("a Kafka outage", function () {
  this.timeout(180_000);
  let dir: string;
  let kafka: KafkaInstance | undefined;
  let platform: RunningPlatform | undefined;
  const admin = { email: "admin@outage.test", password: "outage-admin-pw" };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "event-outage-"));
    kafka = await startKafka({ dataDir: join(dir, "kafka"), log: () => undefined });
    const config = loadEmbeddedConfig({
      DATA_DIR: join(dir, "platform"),
      PORT: "0",
      GRPC_PORT: "0",
      JWT_SECRET: randomBytes(64).toString("hex"),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      KAFKA_BROKERS: kafka.brokers,
    });
    platform = await startPlatform({ config, logger: createLogger("silent", "test") });
  });

  after(async () => {
    await platform?.close();
    await kafka?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function call(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
    const response = await fetch(`${platform?.url ?? ""}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text === "" ? undefined : (JSON.parse(text) as unknown) };
  }

  async function login(email: string, password: string): Promise<string> {
    const response = await call("POST", "/api/auth/login", { email, password });
    expect(response.status).to.equal(200);
    return (response.json as { token: string }).token;
  }

  it("delays events while the broker is down and applies each effect exactly once after", async () => {
    const adminToken = await login(admin.email, admin.password);
    const { json: categories } = await call("GET", "/api/categories");
    const categoryId = (categories as { id: string }[])[0]?.id ?? "";

    const port = kafka?.port ?? 0;
    await kafka?.stop();

    // Everything below happens with no broker at all.
    const user = {
      fullName: "Outage Buyer",
      email: "buyer@outage.test",
      phoneNo: "+919811111111",
      password: "outage-buyer-pw",
    };
    expect((await call("POST", "/api/auth/register", user)).status).to.equal(201);
    const token = await login(user.email, user.password);
    const product = { name: "Outage Lamp", price: 12.5, stock: 3, brand: "Outage", categoryId };
    expect((await call("POST", "/api/products", product, adminToken)).status).to.equal(201);
    const { json: page } = await call("GET", "/api/products?brand=Outage");
    const productId = (page as { content: { id: string }[] }).content[0]?.id ?? "";
    const placed = await call("POST", "/api/orders", { items: [{ productId, quantity: 2 }] }, token);
    expect(placed.status).to.equal(201);
    const { orderId } = placed.json as { orderId: string };
    expect(
      (await call("PUT", `/api/orders/${orderId}/status`, { status: "CONFIRMED" }, adminToken)).status,
    ).to.equal(200);

    // The broker comes back on the same port, with the same data.
    kafka = await startKafka({ dataDir: join(dir, "kafka"), port, log: () => undefined });

    const expected = ["ORDER_PLACED", "ORDER_STATUS_UPDATED", "USER_LOGIN", "USER_REGISTERED"];
    const mine = await eventually(
      async () => {
        const { json } = await call("GET", "/api/notifications?size=100", undefined, token);
        const types = (json as Notification[]).map((n) => n.eventType).sort();
        return expected.every((t) => types.includes(t)) ? types : undefined;
      },
      120_000,
      "the buyer's notifications",
    );
    const adminSees = await eventually(
      async () => {
        const { json } = await call("GET", "/api/notifications?size=100", undefined, adminToken);
        const created = (json as Notification[]).filter(
          (n) => n.eventType === "PRODUCT_CREATED" && n.message.includes("Outage Lamp"),
        );
        return created.length > 0 ? created : undefined;
      },
      60_000,
      "the admin's PRODUCT_CREATED notification",
    );

    // Redeliveries after the outage must not duplicate an effect: wait a little past the
    // consumers' redelivery pause, then count again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const { json: after } = await call("GET", "/api/notifications?size=100", undefined, token);
    expect((after as Notification[]).map((n) => n.eventType).sort()).to.deep.equal(mine);
    expect(mine).to.deep.equal(expected);
    expect(adminSees).to.have.length(1);
    const { json: stock } = await call("GET", `/api/products/${productId}`);
    expect((stock as { stock: number }).stock).to.equal(1);
  });
});

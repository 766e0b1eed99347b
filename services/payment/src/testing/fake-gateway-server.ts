/**
 * Test support: a Razorpay-compatible gateway on loopback that tests start and steer. It
 * serves `POST /v1/orders` (basic auth, `Idempotency-Key`: a repeated key gets the order it
 * made before), and answers each request as the test scripted: normally, slowly (after making
 * the order, as a gateway whose answer is late), when the test says so (after making the order),
 * with an error status, or with garbage. Its hosted checkout (fake-hosted-checkout.ts) serves the
 * customer's side of a payment.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { randomGatewayId } from "../gateway/gateway-ids.js";
import { createFakeHostedCheckout, type FakeHostedCheckout } from "./fake-hosted-checkout.js";

export type FakeAnswer =
  | { readonly kind: "ok" }
  | { readonly kind: "slow"; readonly delayMs: number }
  /**
   * Makes the order, then calls `arrived` with `answer`, which sends the answer and resolves once
   * it is handed to the network: the test acts on the caller in between (a crash test stops it).
   */
  | { readonly kind: "held"; readonly arrived: (answer: () => Promise<void>) => void }
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "garbage"; readonly body: string };

export interface FakeGatewayRequest {
  readonly authorization: string;
  readonly idempotencyKey: string;
  readonly body: string;
}

export interface FakeGateway extends Pick<FakeHostedCheckout, "deliverCallbacksTo" | "callbacks"> {
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly FakeGatewayRequest[];
  /** Orders made, by idempotency key. */
  readonly orders: ReadonlyMap<
    string,
    { readonly id: string; readonly amount: number; readonly currency: string }
  >;
  /** Answers for the next requests, in order; when none is left, `ok`. */
  script(...answers: FakeAnswer[]): void;
  close(): Promise<void>;
}

export async function startFakeGateway(credentials: {
  keyId: string;
  keySecret: string;
}): Promise<FakeGateway> {
  const expectedAuth = `Basic ${Buffer.from(`${credentials.keyId}:${credentials.keySecret}`).toString("base64")}`;
  const requests: FakeGatewayRequest[] = [];
  const orders = new Map<string, { id: string; amount: number; currency: string }>();
  const answers: FakeAnswer[] = [];
  const checkout = createFakeHostedCheckout({
    ...credentials,
    orderOf: (id) => [...orders.values()].find((order) => order.id === id),
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    if (await checkout.serve(req, res, body)) return;
    const idempotencyKey = String(req.headers["idempotency-key"] ?? "");
    requests.push({ authorization: req.headers.authorization ?? "", idempotencyKey, body });
    const answer = answers.shift() ?? { kind: "ok" };
    if (req.method !== "POST" || req.url !== "/v1/orders") {
      reply(res, 404, { error: "not found" });
      return;
    }
    if (req.headers.authorization !== expectedAuth) {
      reply(res, 401, { error: "bad credentials" });
      return;
    }
    if (answer.kind === "status") {
      reply(res, answer.status, { error: "scripted failure" });
      return;
    }
    if (answer.kind === "garbage") {
      res.writeHead(200, { "content-type": "application/json" }).end(answer.body);
      return;
    }
    const { amount, currency, receipt } = JSON.parse(body) as {
      amount: number;
      currency: string;
      receipt: string;
    };
    const order = orders.get(idempotencyKey) ?? { id: randomGatewayId("order"), amount, currency };
    orders.set(idempotencyKey, order);
    if (answer.kind === "slow") await delay(answer.delayMs);
    if (answer.kind === "held") {
      const sent = new Promise<void>((resolve) => res.once("close", resolve));
      await new Promise<void>((release) => {
        answer.arrived(() => {
          release();
          return sent;
        });
      });
    }
    reply(res, 200, { ...order, receipt, entity: "order", status: "created" });
  }

  const server = createServer((req, res) => {
    serve(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    orders,
    script: (...next) => answers.push(...next),
    deliverCallbacksTo: (target) => checkout.deliverCallbacksTo(target),
    callbacks: checkout.callbacks,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

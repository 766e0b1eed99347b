/**
 * Event figures for `npm run bench`:
 *   - end-to-end latency: a state change committed (a login answered) → its notification
 *     visible through the API, through the outbox, the relay, the bus and the Notification
 *     service's consumer; one change at a time (idle load), polled every 2 ms;
 *   - relay throughput: events per second that one outbox relay moves from the store to the
 *     bus, measured in this process on the same adapters the platform uses.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createEmbeddedBus,
  type EventBus,
  createKafkaBus,
  type OutboxCarrier,
  createOutboxRelay,
} from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import { createEmbeddedStoreProvider } from "@commerce/runtime/store";
import { percentile } from "./load.js";

interface Notification {
  readonly eventType: string;
}

async function call(
  url: string,
  init: { method?: string; body?: unknown; token?: string } = {},
): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (init.token !== undefined) headers["authorization"] = `Bearer ${init.token}`;
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Login → USER_LOGIN notification visible, `samples` times, one at a time. */
export async function benchEventLatency(baseUrl: string, mode: string, samples = 100): Promise<string> {
  const user = {
    fullName: "Latency",
    email: `latency.${randomUUID().slice(0, 8)}@bench.test`,
    phoneNo: "+919800000000",
    password: "latency-password",
  };
  await call(`${baseUrl}/api/auth/register`, { method: "POST", body: user });
  let token = "";
  const logins = async (): Promise<number> => {
    const list = (await call(`${baseUrl}/api/notifications?size=100&unread=true`, {
      token,
    })) as Notification[];
    return list.filter((n) => n.eventType === "USER_LOGIN").length;
  };
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const before = token === "" ? 0 : await logins();
    const { token: next } = (await call(`${baseUrl}/api/auth/login`, {
      method: "POST",
      body: { email: user.email, password: user.password },
    })) as { token: string };
    const committed = performance.now();
    token = next;
    const deadline = committed + 10_000;
    while ((await logins()) <= before) {
      if (performance.now() > deadline)
        throw new Error("a USER_LOGIN notification did not arrive within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    latencies.push(performance.now() - committed);
    // Keep the unread list short so that every poll reads little.
    if ((i + 1) % 50 === 0) {
      const list = (await call(`${baseUrl}/api/notifications?size=100&unread=true`, { token })) as {
        id: string;
      }[];
      for (const n of list) await call(`${baseUrl}/api/notifications/${n.id}/read`, { method: "PUT", token });
    }
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50).toFixed(0);
  const p99 = percentile(latencies, 99).toFixed(0);
  return `event latency, change → notification visible (${mode}): p50 ${p50} ms, p99 ${p99} ms over ${samples} changes (target p99 < 500 ms)`;
}

/** One relay moving `count` pending events from an embedded collection to `bus`. */
async function relayRun(bus: EventBus, dir: string, count: number): Promise<number> {
  const stores = createEmbeddedStoreProvider({ dataDir: join(dir, `relay-${randomUUID()}`) });
  try {
    const store = await stores.open("relay");
    const carriers = await store.collection<OutboxCarrier & { _id: string }>({
      name: "carriers",
      indexes: [{ fields: ["outboxPending"] }],
    });
    const topic = `relay-bench-${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < count; i++) {
      const id = `e-${String(i).padStart(6, "0")}`;
      await carriers.insert({
        _id: id,
        _v: 1,
        outbox: [
          {
            id: randomUUID(),
            type: "BENCH",
            source: "/bench",
            time: new Date().toISOString(),
            subject: `k-${i % 64}`,
            topic,
            data: "{}",
          },
        ],
        outboxPending: true,
        outboxOnly: true,
      });
    }
    const relay = createOutboxRelay({
      bus,
      collections: [carriers],
      pollIntervalMs: 60_000,
      batchSize: 100,
      logger: createLogger("silent", "bench"),
    });
    const started = performance.now();
    relay.start();
    relay.kick();
    await relay.drain();
    const seconds = (performance.now() - started) / 1000;
    await relay.stop();
    return count / seconds;
  } finally {
    await stores.close();
  }
}

/** Relay throughput onto the embedded bus, and onto Kafka when brokers are given. */
export async function benchRelay(kafkaBrokers: string | undefined, count = 5_000): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "relay-bench-"));
  const lines: string[] = [];
  try {
    const embedded = await createEmbeddedBus({ dataDir: join(dir, "bus") });
    try {
      lines.push(
        `relay throughput onto the embedded bus: ${Math.round(await relayRun(embedded, dir, count)).toLocaleString("en-US")} events/s (${count} events)`,
      );
    } finally {
      await embedded.close();
    }
    if (kafkaBrokers !== undefined) {
      const kafka = await createKafkaBus({
        brokers: kafkaBrokers.split(","),
        clientId: "relay-bench",
        topics: [],
        logger: createLogger("silent", "bench"),
      });
      try {
        lines.push(
          `relay throughput onto Kafka: ${Math.round(await relayRun(kafka, dir, count)).toLocaleString("en-US")} events/s (${count} events)`,
        );
      } finally {
        await kafka.close();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return lines;
}

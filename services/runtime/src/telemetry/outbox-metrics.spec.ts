import { expect } from "chai";
import { EnvReader } from "../config/env-reader.js";
import type { OutboxCarrier, OutboxEntry } from "../events/outbox.js";
import type { Collection } from "../store/document-store.js";
import { createMetricsProbe } from "../testing/metrics-probe.js";
import { testStoreBackends, type TestStore } from "../testing/test-stores.js";
import { observeOutboxBacklog, outboxBacklog } from "./outbox-metrics.js";
import { startTelemetry, type Telemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

interface Carrier extends OutboxCarrier {
  readonly _id: string;
}

function entry(n: number): OutboxEntry {
  return {
    id: `event-${n}`,
    type: "ORDER_PLACED",
    source: "/commerce/order",
    time: "2024-05-01T10:00:00.000Z",
    subject: "order-1",
    topic: "order-events",
    data: "{}",
  };
}

for (const backend of testStoreBackends("services/runtime/src/telemetry/outbox-metrics.spec.ts")) {
  describe(`outbox backlog (${backend.name})`, () => {
    let opened: TestStore;
    let orders: Collection<Carrier>;
    let carriers: Collection<Carrier>;
    let telemetry: Telemetry;
    const probe = createMetricsProbe();

    before(async () => {
      opened = await backend.open();
      const indexes = [{ fields: ["outboxPending" as const] }];
      orders = await opened.store.collection<Carrier>({ name: "orders", indexes });
      carriers = await opened.store.collection<Carrier>({ name: "carriers", indexes });
      const settings = readTelemetrySettings(new EnvReader({ OTEL_METRICS_EXPORTER: "otlp" }));
      telemetry = startTelemetry(settings, { singleService: false, metricReader: probe.readerFor });
    });
    after(async () => {
      await telemetry.shutdown();
      await opened.close();
    });

    it("observes the events pending in every outbox collection, not the published ones", async () => {
      const pending = (_id: string, entries: number[]): Carrier => ({
        _id,
        _v: 1,
        outbox: entries.map(entry),
        outboxPending: entries.length > 0,
      });
      await orders.insert(pending("o1", [1, 2]));
      await orders.insert(pending("o2", [3]));
      await orders.insert(pending("o3", []));
      await carriers.insert(pending("c1", [4, 5]));
      const stop = observeOutboxBacklog(telemetry.forService("order").meter, [orders, carriers]);

      const backlog = await probe.metric("commerce-order", "commerce.outbox.backlog");
      expect(backlog).to.deep.equal({
        name: "commerce.outbox.backlog",
        unit: "{event}",
        points: [{ attributes: {}, value: 5 }],
      });
      await orders.swap({ ...pending("o1", []), _v: 2 }, 1);
      expect((await probe.metric("commerce-order", "commerce.outbox.backlog"))?.points).to.deep.equal([
        { attributes: {}, value: 3 },
      ]);
      stop();
    });

    it("counts past the first 1 000 pending documents of a collection one event each", async () => {
      const many = await opened.store.collection<Carrier>({
        name: "many",
        indexes: [{ fields: ["outboxPending"] }],
      });
      for (let n = 0; n < 1_002; n++) {
        await many.insert({
          _id: `m${String(n).padStart(4, "0")}`,
          _v: 1,
          outbox: [entry(n), entry(n)],
          outboxPending: true,
        });
      }
      expect(await outboxBacklog([many], AbortSignal.timeout(10_000))).to.equal(2_002);
    });
  });
}

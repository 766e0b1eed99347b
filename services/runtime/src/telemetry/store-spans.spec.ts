import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserRegisteredSchema } from "../../gen/commerce/events/v1/auth_events_pb.js";
import { EnvReader } from "../config/env-reader.js";
import { createEmbeddedBus } from "../events/embedded-bus.js";
import { createEventFactory } from "../events/event-factory.js";
import type { EventCarrierDocument, OutboxCarrier } from "../events/outbox.js";
import { createServiceOutbox } from "../events/service-outbox.js";
import { createLogger } from "../logging/logger.js";
import { DuplicateKeyError, type Collection, type DocumentStore } from "../store/document-store.js";
import { testStoreBackends, type TestStore } from "../testing/test-stores.js";
import { bindTraceContext } from "./trace-context.js";
import { withStoreSpans } from "./store-spans.js";
import { startTelemetry, untraced, type ServiceTelemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

interface Customer extends OutboxCarrier {
  readonly email: string;
  readonly fullName: string;
}

const email = "asha.verma@privacy.test";
const fullName = "Asha Verma";
const quiet = createLogger("silent", "test");

describe("document-store spans", () => {
  const exporter = new InMemorySpanExporter();
  const telemetry = startTelemetry(readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" })), {
    singleService: false,
    spanProcessor: new SimpleSpanProcessor(exporter),
  });
  const user = telemetry.forService("user");

  /**
   * Runs `work` under a SERVER span of the User service bound to the signal it is given, as a
   * handler runs; returns the span.
   */
  async function inRequest(
    work: (signal: AbortSignal) => Promise<unknown>,
    as: ServiceTelemetry = user,
  ): Promise<Span> {
    const request = as.tracer.startSpan("commerce.user.v1.UserService/GetProfile", { kind: SpanKind.SERVER });
    const { signal } = new AbortController();
    bindTraceContext(signal, trace.setSpan(ROOT_CONTEXT, request));
    try {
      await work(signal);
    } finally {
      request.end();
    }
    return request;
  }

  const databaseSpans = (): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((span) => span.attributes["db.system.name"] !== undefined);

  for (const backend of testStoreBackends("services/runtime/src/telemetry/store-spans.spec.ts")) {
    describe(`on the ${backend.name}`, function () {
      this.timeout(60_000);
      let opened: TestStore;
      let store: DocumentStore;
      let customers: Collection<Customer>;

      /** What every span of `collection` carries, per adapter. */
      function expectedAttributes(operation: string, collection = "customers"): Record<string, unknown> {
        const identity = opened.store.identity;
        const mongoUrl = process.env["MONGODB_URL"];
        const server =
          identity.system === "mongodb" && mongoUrl !== undefined
            ? {
                "server.address": new URL(mongoUrl).hostname,
                "server.port": Number(new URL(mongoUrl).port === "" ? 27017 : new URL(mongoUrl).port),
              }
            : {};
        return {
          "db.system.name": backend.name === "embedded store" ? "commerce_embedded_store" : "mongodb",
          "db.namespace": identity.namespace,
          "db.collection.name": collection,
          "db.operation.name": operation,
          ...server,
        };
      }

      beforeEach(async () => {
        exporter.reset();
        opened = await backend.open();
        store = withStoreSpans(opened.store, user);
        customers = await store.collection<Customer>({
          name: "customers",
          indexes: [{ fields: ["email"], unique: true }, { fields: ["outboxPending"] }],
        });
      });
      afterEach(() => opened.close());

      it("makes every operation a CLIENT span, child of the span bound to its signal, named `<operation> <collection>`", async () => {
        const doc: Customer = { _id: "c-1", _v: 1, email, fullName, outbox: [], outboxPending: false };
        const request = await inRequest(async (signal) => {
          await customers.insert(doc, signal);
          expect(await customers.get("c-1", signal)).to.deep.include({ email });
          expect(await customers.findOne({ email }, { signal })).to.deep.include({ _id: "c-1" });
          expect(await customers.find({ email: { $in: [email] } }, { limit: 5, signal })).to.have.length(1);
          expect(await customers.count({ email }, signal)).to.equal(1);
          expect(await customers.swap({ ...doc, _v: 2, fullName: "Asha V." }, 1, signal)).to.equal(true);
          expect(await customers.delete("c-1", signal)).to.equal(true);
        });

        const spans = databaseSpans();
        expect(spans.map((span) => span.name)).to.deep.equal([
          "insert customers",
          "find customers",
          "find customers",
          "find customers",
          "count customers",
          "update customers",
          "delete customers",
        ]);
        const operations = ["insert", "find", "find", "find", "count", "update", "delete"];
        spans.forEach((span, i) => {
          expect(span.kind, span.name).to.equal(SpanKind.CLIENT);
          expect(span.parentSpanContext?.spanId, span.name).to.equal(request.spanContext().spanId);
          expect(span.spanContext().traceId).to.equal(request.spanContext().traceId);
          expect(span.attributes, span.name).to.deep.equal(expectedAttributes(operations[i] ?? ""));
          expect(span.status.code, span.name).to.equal(SpanStatusCode.UNSET);
          expect(span.resource.attributes["service.name"]).to.equal("commerce-user");
        });
        expect(spans[0]?.attributes["db.system.name"]).to.equal(
          backend.name === "embedded store" ? "commerce_embedded_store" : "mongodb",
        );
      });

      it("records no filter value and no document content in any span", async () => {
        await inRequest(async (signal) => {
          await customers.insert(
            { _id: email, _v: 1, email, fullName, outbox: [], outboxPending: false },
            signal,
          );
          await customers.get(email, signal);
          await customers.find({ email, fullName }, { sort: [{ field: "email", direction: 1 }], signal });
          await customers.count({ fullName: { $ne: fullName } }, signal);
          await customers
            .insert({ _id: "c-2", _v: 1, email, fullName, outbox: [], outboxPending: false }, signal)
            .catch(() => undefined);
        });
        const spans = databaseSpans();
        expect(spans).to.have.length(5);
        const recorded = JSON.stringify(
          spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
        );
        for (const secret of [email, fullName, "privacy.test", "Asha"])
          expect(recorded).to.not.contain(secret);
      });

      it("keeps a duplicate key and a lost swap out of errors, and marks a failure ERROR with its class", async () => {
        const doc: Customer = { _id: "c-3", _v: 1, email, fullName, outbox: [], outboxPending: false };
        await inRequest(async (signal) => {
          await customers.insert(doc, signal);
          const duplicate = await customers
            .insert({ ...doc, _id: "c-4" }, signal)
            .catch((error: unknown) => error);
          expect(duplicate).to.be.instanceOf(DuplicateKeyError);
          expect(await customers.swap({ ...doc, _v: 3 }, 2, signal)).to.equal(false);
          const refused = await customers.swap({ ...doc, _v: 5 }, 1, signal).catch((error: unknown) => error);
          expect(refused).to.be.instanceOf(RangeError);
        });
        const spans = databaseSpans();
        expect(spans.map((s) => [s.name, s.status.code, s.attributes["error.type"]])).to.deep.equal([
          ["insert customers", SpanStatusCode.UNSET, undefined],
          ["insert customers", SpanStatusCode.UNSET, "DuplicateKeyError"],
          ["update customers", SpanStatusCode.UNSET, undefined],
          ["update customers", SpanStatusCode.ERROR, "RangeError"],
        ]);
        expect(spans[3]?.status.message).to.equal(undefined);
      });

      it("makes no span for store work outside any span", async () => {
        await customers.insert({ _id: "c-5", _v: 1, email, fullName, outbox: [], outboxPending: false });
        await customers.find({ email });
        expect(exporter.getFinishedSpans()).to.deep.equal([]);
      });

      it("traces a recorded write (its events in the same write) but not the relay's passes outside spans", async () => {
        const busDir = await mkdtemp(join(tmpdir(), "store-spans-bus-"));
        const bus = await createEmbeddedBus({ dataDir: busDir, logger: quiet });
        const carriers = await store.collection<EventCarrierDocument>({
          name: "event_carriers",
          indexes: [{ fields: ["outboxPending"] }],
        });
        const outbox = createServiceOutbox({
          bus,
          logger: quiet,
          telemetry: user,
          carriers,
          pollIntervalMs: 20,
        });
        const recorded = outbox.track(customers);
        outbox.start();
        try {
          const events = createEventFactory("/commerce/auth");
          let stored: Customer | undefined;
          const request = await inRequest(async (signal) => {
            stored = await recorded.insert(
              { _id: "c-6", email, fullName },
              [events.event(UserRegisteredSchema, { userId: 6, email, fullName, role: "CUSTOMER" }, "6")],
              signal,
            );
          });
          // The write recorded its cause with the event (events/event-cause.ts).
          const { traceId, spanId } = request.spanContext();
          expect(stored?.outbox.map((event) => event.traceparent)).to.deep.equal([
            `00-${traceId}-${spanId}-01`,
          ]);
          await outbox.drain();
          await new Promise((resolve) => setTimeout(resolve, 100)); // a few more idle polls
          const spans = databaseSpans();
          expect(spans.map((s) => s.name)).to.deep.equal(["insert customers"]);
          expect(spans[0]?.parentSpanContext?.spanId).to.equal(request.spanContext().spanId);
          // The relay's publish is traced (messaging-spans.ts); its finds and settling are not.
          expect(exporter.getFinishedSpans().map((s) => s.name)).to.include("send auth-events");
        } finally {
          await outbox.stop();
          await bus.close();
          await rm(busDir, { recursive: true, force: true });
        }
      });

      it("is the store itself when tracing is off", async () => {
        expect(withStoreSpans(opened.store, untraced)).to.equal(opened.store);
        const plain = await withStoreSpans(opened.store, untraced).collection<Customer>({
          name: "customers",
        });
        await inRequest(
          (signal) =>
            plain.insert({ _id: "c-7", _v: 1, email, fullName, outbox: [], outboxPending: false }, signal),
          untraced,
        );
        expect(exporter.getFinishedSpans()).to.deep.equal([]);
      });
    });
  }
});

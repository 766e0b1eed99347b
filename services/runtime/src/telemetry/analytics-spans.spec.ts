import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import type { AnalyticsStore } from "../analytics/analytics-store.js";
import { AnalyticsStoreError } from "../analytics/analytics-store-error.js";
import { sql } from "../analytics/sql.js";
import { EnvReader } from "../config/env-reader.js";
import type { EventRecord } from "../events/event-bus.js";
import { analyticsStoreBackends, type TestAnalyticsStore } from "../testing/test-analytics-stores.js";
import { withAnalyticsSpans } from "./analytics-spans.js";
import { withBatchConsumerSpan } from "./messaging-spans.js";
import { startTelemetry, untraced } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

const email = "ravi.menon@privacy.test";

const createRows = sql`CREATE TABLE IF NOT EXISTS user_rows (
  event_id String,
  email String,
  day Date
) ENGINE = ReplacingMergeTree() ORDER BY event_id`;
const createDays = sql`CREATE TABLE IF NOT EXISTS rows_by_day (day Date, n Int64)
  ENGINE = ReplacingMergeTree() ORDER BY day`;

const record: EventRecord = {
  id: "evt-1",
  type: "USER_REGISTERED",
  source: "/commerce/auth",
  time: "2024-05-01T10:00:00.000Z",
  subject: "1",
  topic: "auth-events",
  data: "{}",
};

describe("analytics-store spans", () => {
  const exporter = new InMemorySpanExporter();
  const telemetry = startTelemetry(readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" })), {
    singleService: false,
    spanProcessor: new SimpleSpanProcessor(exporter),
  });
  const processor = telemetry.forService("analytics-processor");

  for (const backend of analyticsStoreBackends("services/runtime/src/telemetry/analytics-spans.spec.ts")) {
    describe(`on ${backend.name}`, function () {
      this.timeout(60_000);
      let subject: TestAnalyticsStore;
      let store: AnalyticsStore;

      beforeEach(async () => {
        subject = await backend.open();
        await subject.store.command(createRows);
        await subject.store.command(createDays);
        store = withAnalyticsSpans(subject.store, processor);
        exporter.reset();
      });
      afterEach(async () => {
        await subject.store.close();
        await subject.cleanup();
      });

      /** What each span of this backend carries besides the operation and the table. */
      function identityAttributes(): Record<string, unknown> {
        const url = process.env["CLICKHOUSE_URL"];
        if (backend.name === "chDB" || url === undefined) {
          return { "db.system.name": "clickhouse", "db.namespace": "default" };
        }
        return {
          "db.system.name": "clickhouse",
          "db.namespace": subject.store.identity.namespace,
          "server.address": new URL(url).hostname,
          "server.port": Number(new URL(url).port),
        };
      }

      const databaseSpans = (): ReadableSpan[] =>
        exporter.getFinishedSpans().filter((span) => span.attributes["db.system.name"] !== undefined);

      it("makes a batch's insert, rollup and read CLIENT spans under its CONSUMER span, without values", async () => {
        const handler = withBatchConsumerSpan(
          async (_batch, signal) => {
            await store.insert("user_rows", [{ event_id: "evt-1", email, day: "2024-05-01" }], signal);
            await store.insert("user_rows", [], signal);
            await store.command(
              sql`INSERT INTO rows_by_day (day, n)
              SELECT day, toInt64(count()) FROM user_rows FINAL WHERE email != ${email} OR day = ${"2024-05-01"}
              GROUP BY day`,
              signal,
            );
            // A value that reads like SQL must not name the span.
            const rows = await store.query<{ n: string }>(
              sql`SELECT ${"from ravi"} AS who, n FROM rows_by_day FINAL WHERE day = toDate(${"2024-05-01"})`,
              signal,
            );
            expect(rows).to.deep.equal([{ who: "from ravi", n: "1" }]);
          },
          processor,
          "kafka",
          "analytics-processor",
        );
        await handler(
          { topic: "auth-events", partition: 0, records: [record] },
          new AbortController().signal,
        );

        const batch = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CONSUMER);
        expect(batch?.name).to.equal("process auth-events");
        const spans = databaseSpans();
        expect(spans.map((span) => span.name)).to.deep.equal([
          "INSERT user_rows",
          "INSERT rows_by_day",
          "SELECT rows_by_day",
        ]);
        const tables = ["user_rows", "rows_by_day", "rows_by_day"];
        spans.forEach((span, i) => {
          expect(span.kind, span.name).to.equal(SpanKind.CLIENT);
          expect(span.parentSpanContext?.spanId, span.name).to.equal(batch?.spanContext().spanId);
          expect(span.resource.attributes["service.name"]).to.equal("commerce-analytics-processor");
          expect(span.status.code, span.name).to.equal(SpanStatusCode.UNSET);
          expect(span.attributes, span.name).to.deep.equal({
            ...identityAttributes(),
            "db.collection.name": tables[i],
            "db.operation.name": span.name.split(" ")[0],
          });
        });
        const recorded = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes })));
        expect(recorded).to.not.contain(email);
        expect(recorded).to.not.contain("2024-05-01");
        expect(recorded).to.not.contain("ravi");
      });

      it("marks a refused statement ERROR with its class, and makes no span outside any span", async () => {
        const handler = withBatchConsumerSpan(
          async (_batch, signal) => {
            await store.command(sql`OPTIMIZE TABLE no_such_table`, signal);
          },
          processor,
          "kafka",
          "analytics-processor",
        );
        const refused = await handler(
          { topic: "auth-events", partition: 0, records: [record] },
          new AbortController().signal,
        ).catch((error: unknown) => error);
        expect(refused).to.be.instanceOf(AnalyticsStoreError);
        const [span] = databaseSpans();
        expect(span?.name).to.equal("OPTIMIZE");
        expect(span?.attributes["db.collection.name"]).to.equal(undefined);
        expect(span?.status.code).to.equal(SpanStatusCode.ERROR);
        expect(span?.attributes["error.type"]).to.equal("AnalyticsStoreError");

        exporter.reset();
        await store.insert("user_rows", [{ event_id: "evt-2", email, day: "2024-05-02" }]);
        await store.query(sql`SELECT count() FROM user_rows`, new AbortController().signal);
        expect(exporter.getFinishedSpans()).to.deep.equal([]);
      });

      it("is the store itself when tracing is off", () => {
        expect(withAnalyticsSpans(subject.store, untraced)).to.equal(subject.store);
      });
    });
  }
});

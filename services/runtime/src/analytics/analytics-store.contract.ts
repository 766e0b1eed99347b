/**
 * The one contract of the analytics-store port (ADR 0019: one contract suite per
 * port, run against every adapter): chDB 26 in process and a ClickHouse 18.16 server. It pins
 * down what the stream processor and the Analytics service rely on, in SQL both engines run:
 * exactly-once figures from at-least-once inserts (ReplacingMergeTree keyed by event id, read
 * with FINAL), latest status by `argMax`, `uniqExact`, exact Int64 money, UTC days, a day
 * series with empty days filled, large inserts, value quoting, migrations, and failures.
 */
import { Code } from "@connectrpc/connect";
import { expect } from "chai";
import { toConnectError } from "../errors/to-connect-error.js";
import { migrateAnalyticsStore, type AnalyticsMigration } from "./analytics-migrations.js";
import type { AnalyticsRow, AnalyticsStore } from "./analytics-store.js";
import { AnalyticsStoreError } from "./analytics-store-error.js";
import { identifier, sql, type Sql } from "./sql.js";
import type { TestAnalyticsStore, TestAnalyticsStoreBackend } from "../testing/test-analytics-stores.js";
import { rejectionOf } from "../testing/rejection.js";

/** The events table of these tests: one row per event, deduplicated by event id. */
const createEvents = sql`CREATE TABLE IF NOT EXISTS events (
  event_id String,
  order_id String,
  status String,
  amount_minor Int64,
  occurred_at DateTime('UTC'),
  day Date
) ENGINE = ReplacingMergeTree() ORDER BY event_id`;

interface EventFields {
  readonly order?: string;
  readonly status?: string;
  readonly amount?: bigint;
  readonly at?: string;
}

function event(id: string, fields: EventFields = {}): AnalyticsRow {
  const at = new Date(fields.at ?? "2024-05-01T10:00:00Z");
  return {
    event_id: id,
    order_id: fields.order ?? "o1",
    status: fields.status ?? "CREATED",
    amount_minor: fields.amount ?? 0n,
    occurred_at: at,
    day: at.toISOString().slice(0, 10),
  };
}

/** Runs the contract on one backend (a fresh, empty store per test). */
export function describeAnalyticsStoreContract(backend: TestAnalyticsStoreBackend): void {
  describe(`analytics store contract (${backend.name})`, function () {
    this.timeout(30_000);
    let subject: TestAnalyticsStore;
    let store: AnalyticsStore;
    const others: AnalyticsStore[] = [];

    beforeEach(async () => {
      subject = await backend.open();
      store = subject.store;
    });

    afterEach(async () => {
      for (const other of others.splice(0)) await other.close();
      await store.close();
      await subject.cleanup();
    });

    const count = async (statement: Sql): Promise<string | undefined> =>
      (await store.query<{ n: string }>(statement))[0]?.n;

    describe("exactly once from at-least-once inserts", () => {
      it("counts each event id once under FINAL after the same rows arrive again, before any merge", async () => {
        await store.command(createEvents);
        const batch = [event("e1"), event("e2"), event("e3")];
        await store.insert("events", batch);
        await store.insert("events", batch);
        await store.insert("events", [event("e1"), event("e4")]);
        // The redelivered rows are stored (no merge has run): only FINAL collapses them.
        expect(await count(sql`SELECT count() AS n FROM events`)).to.equal("8");
        expect(await count(sql`SELECT count() AS n FROM events FINAL`)).to.equal("4");
        expect(await count(sql`SELECT uniqExact(event_id) AS n FROM events`)).to.equal("4");
      });

      it("collapses an id repeated within one insert under FINAL", async () => {
        await store.command(createEvents);
        await store.insert("events", [event("e1"), event("e1"), event("e2")]);
        // Without FINAL the engines differ: chDB 26 merges the block on insert, 18.16 does not.
        expect(await count(sql`SELECT count() AS n FROM events FINAL`)).to.equal("2");
      });

      it("gives each order's latest status with argMax, redelivered and out of order, ties broken by a rank", async () => {
        await store.command(createEvents);
        const o1Created = event("e1", { order: "o1", status: "CREATED", at: "2024-05-01T10:00:00Z" });
        const o1Confirmed = event("e2", { order: "o1", status: "CONFIRMED", at: "2024-05-01T10:05:00Z" });
        const o1Cancelled = event("e3", { order: "o1", status: "CANCELLED", at: "2024-05-01T11:00:00Z" });
        const o2Created = event("e4", { order: "o2", status: "CREATED", at: "2024-05-01T09:00:00Z" });
        // o3 is confirmed within the second it was created in: the rank decides.
        const o3Created = event("e5", { order: "o3", status: "CREATED", at: "2024-05-01T12:00:00Z" });
        const o3Confirmed = event("e6", { order: "o3", status: "CONFIRMED", at: "2024-05-01T12:00:00Z" });
        await store.insert("events", [o1Cancelled, o3Confirmed, o2Created]);
        await store.insert("events", [o1Created, o1Confirmed, o1Cancelled, o3Created, o3Confirmed]);
        await store.insert("events", [o1Confirmed]);
        const rank = sql`multiIf(status = 'CREATED', 1, status = 'CONFIRMED', 2, 3)`;
        const latest = await store.query<{ order_id: string; status: string }>(sql`
          SELECT order_id, argMax(status, (occurred_at, ${rank})) AS status
          FROM events FINAL GROUP BY order_id ORDER BY order_id`);
        expect(latest).to.deep.equal([
          { order_id: "o1", status: "CANCELLED" },
          { order_id: "o2", status: "CREATED" },
          { order_id: "o3", status: "CONFIRMED" },
        ]);
        const byStatus = await store.query<{ status: string; n: string }>(sql`
          SELECT status, count() AS n FROM (
            SELECT order_id, argMax(status, (occurred_at, ${rank})) AS status
            FROM events FINAL GROUP BY order_id
          ) GROUP BY status ORDER BY status`);
        expect(byStatus).to.deep.equal([
          { status: "CANCELLED", n: "1" },
          { status: "CONFIRMED", n: "1" },
          { status: "CREATED", n: "1" },
        ]);
      });

      it("sums Int64 minor units exactly beyond 2^53, refunds included, as decimal strings", async () => {
        await store.command(createEvents);
        await store.insert("events", [
          event("p1", { status: "PAID", amount: 9_007_199_254_740_993n }),
          event("p2", { status: "PAID", amount: 7n }),
          event("p3", { status: "REFUNDED", amount: -1n }),
        ]);
        await store.insert("events", [event("p2", { status: "PAID", amount: 7n })]);
        const [row] = await store.query<{ total: string; paid: string }>(sql`
          SELECT sum(amount_minor) AS total, sumIf(amount_minor, status = ${"PAID"}) AS paid FROM events FINAL`);
        expect(row).to.deep.equal({ total: "9007199254740999", paid: "9007199254741000" });
        expect(BigInt(row?.total ?? "")).to.equal(9_007_199_254_740_999n);
      });
    });

    describe("days in UTC", () => {
      it("stores DateTime('UTC') in whole seconds and gives UTC days with toDate and toStartOfDay", async () => {
        await store.command(createEvents);
        await store.insert("events", [
          event("late", { at: "2024-05-01T23:30:59.999Z" }),
          event("early", { at: "2024-05-02T00:10:00Z" }),
        ]);
        const rows = await store.query(sql`
          SELECT event_id, occurred_at, day, toDate(occurred_at) AS date, toStartOfDay(occurred_at) AS start,
                 toUnixTimestamp(occurred_at) AS unix
          FROM events ORDER BY occurred_at`);
        expect(rows).to.deep.equal([
          {
            event_id: "late",
            occurred_at: "2024-05-01 23:30:59",
            day: "2024-05-01",
            date: "2024-05-01",
            start: "2024-05-01 00:00:00",
            unix: Date.UTC(2024, 4, 1, 23, 30, 59) / 1000,
          },
          {
            event_id: "early",
            occurred_at: "2024-05-02 00:10:00",
            day: "2024-05-02",
            date: "2024-05-02",
            start: "2024-05-02 00:00:00",
            unix: Date.UTC(2024, 4, 2, 0, 10, 0) / 1000,
          },
        ]);
        const midnight = new Date("2024-05-02T00:00:00Z");
        expect(await count(sql`SELECT count() AS n FROM events WHERE occurred_at >= ${midnight}`)).to.equal(
          "1",
        );
        expect(await count(sql`SELECT count() AS n FROM events WHERE day = ${"2024-05-01"}`)).to.equal("1");
      });

      it("groups by day over a range with empty days as 0, by joining a day series", async () => {
        await store.command(createEvents);
        await store.insert("events", [
          event("a", { status: "PAID", amount: 1_000n, at: "2024-05-01T08:00:00Z" }),
          event("b", { status: "PAID", amount: 250n, at: "2024-05-01T23:59:59Z" }),
          event("c", { status: "PAID", amount: 5n, at: "2024-05-03T00:00:00Z" }),
          event("d", { status: "PAID", amount: 9n, at: "2024-05-09T00:00:00Z" }),
        ]);
        await store.insert("events", [
          event("a", { status: "PAID", amount: 1_000n, at: "2024-05-01T08:00:00Z" }),
        ]);
        // 18.16 has no ORDER BY … WITH FILL: the days come from a series, totals are joined on.
        const from = "2024-04-30";
        const days = 5;
        const rows = await store.query<{ day: string; amount: string }>(sql`
          SELECT day, amount
          FROM (SELECT toDate(${from}) + number AS day FROM system.numbers LIMIT ${days}) AS series
          ANY LEFT JOIN (
            SELECT day, sum(amount_minor) AS amount FROM events FINAL
            WHERE day >= toDate(${from}) AND day < toDate(${from}) + ${days}
            GROUP BY day
          ) AS totals USING (day)
          ORDER BY day`);
        expect(rows).to.deep.equal([
          { day: "2024-04-30", amount: "0" },
          { day: "2024-05-01", amount: "1250" },
          { day: "2024-05-02", amount: "0" },
          { day: "2024-05-03", amount: "5" },
          { day: "2024-05-04", amount: "0" },
        ]);
      });
    });

    describe("inserts", () => {
      it("inserts 10,000 rows in one call", async () => {
        await store.command(createEvents);
        const rows = Array.from({ length: 10_000 }, (_, i) =>
          event(`e${i}`, { order: `o${i % 100}`, amount: BigInt(i) }),
        );
        await store.insert("events", rows);
        const [row] = await store.query<{ n: string; orders: string; total: string }>(
          sql`SELECT count() AS n, uniqExact(order_id) AS orders, sum(amount_minor) AS total FROM events FINAL`,
        );
        expect(row).to.deep.equal({ n: "10000", orders: "100", total: String((9_999 * 10_000) / 2) });
      });

      it("sends nothing for no rows", async () => {
        await store.insert("absent_table", []);
      });

      it("refuses a column the table lacks, and fills an omitted one with its type's zero, not its DEFAULT", async () => {
        await store.command(sql`CREATE TABLE defaults (id String, n Int64 DEFAULT 7, at DateTime('UTC') DEFAULT now())
          ENGINE = MergeTree() ORDER BY id`);
        const error = await rejectionOf(store.insert("defaults", [{ id: "a", n: 1n, typo: 1 }]));
        expect(error).to.be.instanceOf(AnalyticsStoreError);
        await store.insert("defaults", [{ id: "b" }]);
        expect(await store.query(sql`SELECT id, n, toUnixTimestamp(at) AS at FROM defaults`)).to.deep.equal([
          { id: "b", n: "0", at: 0 },
        ]);
      });
    });

    describe("values through sql`…` and insert", () => {
      const awkward = [
        "it's",
        "back\\slash",
        "\\'",
        "'; DROP TABLE texts; --",
        "line\nbreak\ttab\rreturn",
        "nul\u0000byte\u0001\u001f\u007f",
        "ünïcödé ₹ 中文 😀",
        "\\x41 \\n \\u00e9",
        "",
        "?",
        "{name:String}",
      ];

      it("round-trips strings with quotes, backslashes, control characters and Unicode", async () => {
        await store.command(
          sql`CREATE TABLE texts (id UInt32, value String) ENGINE = MergeTree() ORDER BY id`,
        );
        await store.insert(
          "texts",
          awkward.map((value, id) => ({ id, value })),
        );
        const stored = await store.query<{ value: string }>(sql`SELECT value FROM texts ORDER BY id`);
        expect(stored.map((row) => row.value)).to.deep.equal(awkward);
        for (const [id, value] of awkward.entries()) {
          const [row] = await store.query<{ echoed: string; id: number; bytes: string }>(
            sql`SELECT ${value} AS echoed, id, length(${value}) AS bytes FROM texts WHERE value = ${value}`,
          );
          expect(row, JSON.stringify(value)).to.deep.equal({
            echoed: value,
            id,
            bytes: String(Buffer.byteLength(value)),
          });
        }
      });

      it("writes numbers, bigints, booleans, dates and null as literals the engines read back exactly", async () => {
        const [row] = await store.query(sql`
          SELECT ${-5} AS negative, 10 - ${-5} AS difference, ${0.25} AS fraction,
                 ${-9_223_372_036_854_775_808n} AS smallest, toInt64(${9_223_372_036_854_775_807n}) AS largest,
                 ${true} AS yes, ${false} AS no, ${null} AS nothing,
                 ${new Date("2024-02-29T23:59:59.500Z")} AS at, toTypeName(${new Date("2024-02-29T00:00:00Z")}) AS type`);
        expect(row).to.deep.equal({
          negative: -5,
          difference: 15,
          fraction: 0.25,
          smallest: "-9223372036854775808",
          largest: "9223372036854775807",
          yes: 1,
          no: 0,
          nothing: null,
          at: "2024-02-29 23:59:59",
          type: "DateTime('UTC')",
        });
      });

      it("takes table names only as plain identifiers", async () => {
        await store.command(sql`CREATE TABLE ${identifier("plain_name")} (id UInt8) ENGINE = Memory`);
        await store.insert("plain_name", [{ id: 1 }]);
        expect(await count(sql`SELECT count() AS n FROM ${identifier("plain_name")}`)).to.equal("1");
        const error = await rejectionOf(store.insert("plain_name; DROP TABLE x", [{ id: 1 }]));
        expect(error).to.be.instanceOf(TypeError);
      });
    });

    describe("migrations", () => {
      const daily: AnalyticsMigration = {
        version: 2,
        description: "daily totals",
        statements: [
          sql`CREATE TABLE IF NOT EXISTS daily (day Date, amount Int64) ENGINE = SummingMergeTree() ORDER BY day`,
        ],
      };
      const migrations: readonly AnalyticsMigration[] = [
        { version: 1, description: "events", statements: [createEvents] },
        daily,
      ];
      const versions = (on: AnalyticsStore) =>
        on.query(sql`SELECT version, description FROM schema_version FINAL ORDER BY version`);

      it("applies the migrations in order, records the version, and changes nothing when run again", async () => {
        expect(await migrateAnalyticsStore(store, migrations)).to.equal(2);
        expect(await migrateAnalyticsStore(store, migrations)).to.equal(2);
        expect(await versions(store)).to.deep.equal([
          { version: 1, description: "events" },
          { version: 2, description: "daily totals" },
        ]);
        await store.insert("daily", [{ day: "2024-05-01", amount: 5n }]);
        await store.insert("events", [event("e1")]);
      });

      it("applies only the migrations after the recorded version", async () => {
        // Not idempotent on purpose: running migration 1 again would fail.
        const once = {
          version: 1,
          description: "once",
          statements: [sql`CREATE TABLE once (id UInt8) ENGINE = Memory`],
        };
        expect(await migrateAnalyticsStore(store, [once])).to.equal(1);
        expect(await migrateAnalyticsStore(store, [once, daily])).to.equal(2);
        expect(await versions(store)).to.deep.equal([
          { version: 1, description: "once" },
          { version: 2, description: "daily totals" },
        ]);
      });

      it("ends at the same version with one row per version when two processes migrate at once", async () => {
        const another = await subject.openAnother();
        others.push(another);
        expect(
          await Promise.all([
            migrateAnalyticsStore(store, migrations),
            migrateAnalyticsStore(another, migrations),
          ]),
        ).to.deep.equal([2, 2]);
        expect(await versions(another)).to.deep.equal([
          { version: 1, description: "events" },
          { version: 2, description: "daily totals" },
        ]);
      });

      it("refuses a list not numbered 1, 2, 3…", async () => {
        const error = await rejectionOf(migrateAnalyticsStore(store, [daily]));
        expect(error).to.be.instanceOf(TypeError);
      });
    });

    describe("failures", () => {
      it("rejects a failed query with AnalyticsStoreError whose message, and the client's error, hold no SQL or server text", async () => {
        const error = await rejectionOf(
          store.query(sql`SELECT secret_column FROM missing_table WHERE x = ${"value"}`),
        );
        expect(error).to.be.instanceOf(AnalyticsStoreError);
        const storeError = error as AnalyticsStoreError;
        expect(storeError.message).to.equal("analytics store query failed");
        expect(storeError.operation).to.equal("query");
        expect(storeError.serverCode).to.be.oneOf([47, 60]);
        // The server's text stays in the cause, for the log.
        expect((storeError.cause as Error).message).to.include("missing_table");
        const onTheWire = toConnectError(storeError);
        expect(onTheWire.code).to.equal(Code.Internal);
        expect(onTheWire.rawMessage).to.equal("internal error");
      });

      it("rejects a syntax error with code 62 and a failed command as a command failure", async () => {
        const syntax = await rejectionOf(store.query(sql`SELEC 1`));
        expect((syntax as AnalyticsStoreError).serverCode).to.equal(62);
        const command = await rejectionOf(store.command(sql`DROP TABLE missing_table`));
        expect(command).to.be.instanceOf(AnalyticsStoreError);
        expect((command as AnalyticsStoreError).message).to.equal("analytics store command failed");
      });

      it("answers ping while open; once closed, ping is false and every call fails with AnalyticsStoreError", async () => {
        expect(await store.ping()).to.equal(true);
        await store.close();
        await store.close();
        expect(await store.ping()).to.equal(false);
        for (const call of [
          store.query(sql`SELECT 1`),
          store.command(sql`SELECT 1`),
          store.insert("events", [event("e1")]),
        ]) {
          expect(await rejectionOf(call)).to.be.instanceOf(AnalyticsStoreError);
        }
      });
    });
  });
}

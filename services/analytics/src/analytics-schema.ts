/**
 * The analytics schema (ADR 0057), as migrations in order:
 *   1. one table per event family, ordered by event id (the first design: every figure read
 *      every event with FINAL, which took about a second over a million orders);
 *   2. the event tables ordered by (occurred_at, event_id), and the rollups the figures read
 *      (analytics-rollups.ts); version 1's rows copied and summed;
 *   3. version 1's tables dropped.
 * Every statement is idempotent (analytics-migrations.ts). The rollups' sums are those of
 * analytics-rollups.ts: a change of counters needs new rollup tables, by a new migration.
 *
 * Changes come as new migrations: never edit one that has shipped.
 */
import { type AnalyticsMigration, identifier, joinSql, sql } from "@commerce/runtime/analytics";
import { counters, eventTables, rollupTables, sumDays, sumSeconds } from "./analytics-rollups.js";

/** Every table the pipeline fills: what a rebuild empties. */
export const pipelineTables: readonly string[] = [
  ...Object.values(eventTables),
  ...Object.values(rollupTables),
];

const families = Object.keys(eventTables) as readonly (keyof typeof eventTables)[];

const counterDefinitions = joinSql(
  counters.map((counter) => sql`${identifier(counter)} Int64`),
  sql`, `,
);

/** Version 1's tables, ordered by event id (dropped by version 3). */
const versionOneTables = [
  sql`CREATE TABLE IF NOT EXISTS user_events (
        event_id String,
        event_type String,
        user_id UInt32,
        occurred_at DateTime('UTC')
      ) ENGINE = ReplacingMergeTree() ORDER BY event_id`,
  // status_rank orders the statuses as the order's state machine moves (CREATED 0,
  // CONFIRMED 1, CANCELLED 2): an order's latest status is the one of highest rank.
  sql`CREATE TABLE IF NOT EXISTS order_events (
        event_id String,
        event_type String,
        order_id String,
        status String,
        status_rank UInt8,
        total_amount_minor Int64,
        occurred_at DateTime('UTC'),
        day Date
      ) ENGINE = ReplacingMergeTree() ORDER BY event_id`,
  sql`CREATE TABLE IF NOT EXISTS payment_events (
        event_id String,
        event_type String,
        payment_id String,
        order_id String,
        amount_minor Int64,
        occurred_at DateTime('UTC'),
        day Date
      ) ENGINE = ReplacingMergeTree() ORDER BY event_id`,
];

export const analyticsMigrations: readonly AnalyticsMigration[] = [
  {
    version: 1,
    description: "user, order and payment events, one row per event id",
    statements: versionOneTables,
  },
  {
    version: 2,
    description: "events ordered by time and event id, figures rolled up by second and by day",
    statements: [
      // Version 1's tables, so that the copy below finds them even when this runs again after
      // version 3 dropped them (two processes migrating at once, one that died half-way): they
      // are empty then, and version 3 drops them again.
      ...versionOneTables,
      sql`CREATE TABLE IF NOT EXISTS user_event_rows (
        event_id String,
        event_type String,
        user_id UInt32,
        occurred_at DateTime('UTC')
      ) ENGINE = ReplacingMergeTree() ORDER BY (occurred_at, event_id)`,
      sql`CREATE TABLE IF NOT EXISTS order_event_rows (
        event_id String,
        event_type String,
        order_id String,
        status String,
        previous_status String,
        total_amount_minor Int64,
        occurred_at DateTime('UTC')
      ) ENGINE = ReplacingMergeTree() ORDER BY (occurred_at, event_id)`,
      sql`CREATE TABLE IF NOT EXISTS payment_event_rows (
        event_id String,
        event_type String,
        payment_id String,
        order_id String,
        amount_minor Int64,
        occurred_at DateTime('UTC')
      ) ENGINE = ReplacingMergeTree() ORDER BY (occurred_at, event_id)`,
      sql`CREATE TABLE IF NOT EXISTS figures_by_second (
        family String,
        second DateTime('UTC'),
        version UInt64,
        ${counterDefinitions}
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (family, second)`,
      sql`CREATE TABLE IF NOT EXISTS figures_by_day (
        family String,
        day Date,
        version UInt64,
        ${counterDefinitions}
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (family, day)`,
      // Version 1's rows, copied (a copy made twice is deduplicated like any redelivery). Its
      // order rows had no previous status: the state machine gives it (CONFIRMED comes from
      // CREATED, CANCELLED from CONFIRMED: services/order/src/order-status.ts).
      sql`INSERT INTO user_event_rows SELECT event_id, event_type, user_id, occurred_at FROM user_events`,
      sql`INSERT INTO order_event_rows
        SELECT event_id, event_type, order_id, status,
               multiIf(event_type != 'ORDER_STATUS_UPDATED', '', status = 'CONFIRMED', 'CREATED',
                       status = 'CANCELLED', 'CONFIRMED', ''),
               total_amount_minor, occurred_at
        FROM order_events`,
      sql`INSERT INTO payment_event_rows
        SELECT event_id, event_type, payment_id, order_id, amount_minor, occurred_at FROM payment_events`,
      // Version 0: any sum the processor writes later replaces these.
      ...families.map((family) => sumSeconds(family, sql`1`, 0)),
      ...families.map((family) => sumDays(family, sql`1`, 0)),
    ],
  },
  {
    version: 3,
    description: "version 1's event tables dropped (copied by version 2)",
    statements: [
      sql`DROP TABLE IF EXISTS user_events`,
      sql`DROP TABLE IF EXISTS order_events`,
      sql`DROP TABLE IF EXISTS payment_events`,
    ],
  },
];

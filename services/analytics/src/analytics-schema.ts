/**
 * The analytics tables: what the stream processor writes and the Analytics service reads, one
 * table per event family, one row per event (docs/decisions.md "Analytics").
 *
 * Each is a ReplacingMergeTree ordered by event id and every figure reads it with FINAL, so an
 * event delivered twice (a redelivered batch, a replay, an outbox relay publishing twice) is
 * one row: ClickHouse 18.16 does not deduplicate inserts, and without FINAL the two engines
 * would not even agree on the raw count (docs/decisions.md "Analytics store"). Rows hold only
 * what the figures need; every column is written on every insert.
 *
 * Changes come as new migrations (analytics-migrations.ts): never edit one that has shipped.
 */
import type { AnalyticsMigration } from "@commerce/runtime/analytics/analytics-migrations.js";
import { sql } from "@commerce/runtime/analytics/sql.js";

/** The tables, by the name inserts use. */
export const analyticsTables = {
  /** USER_REGISTERED and USER_DELETED. */
  users: "user_events",
  /** ORDER_PLACED and ORDER_STATUS_UPDATED. */
  orders: "order_events",
  /** PAYMENT_SUCCESS. */
  payments: "payment_events",
} as const;

export type AnalyticsTable = (typeof analyticsTables)[keyof typeof analyticsTables];

export const analyticsMigrations: readonly AnalyticsMigration[] = [
  {
    version: 1,
    description: "user, order and payment events, one row per event id",
    statements: [
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
    ],
  },
];

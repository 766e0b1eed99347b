/**
 * The rollups the figures read (ADR 0057): every figure is a sum over
 * distinct events of what each event adds to it (a registration adds a user, a deletion takes
 * one away; a placement adds an order in CREATED; a status update moves one order from its
 * previous status to its new one; a successful payment adds its amount). Sums can be kept per
 * time bucket, so the service reads a few hundred rows, never the events.
 *
 * Exact however often an event arrives, because a rollup row is never added to, only replaced:
 *   - the event rows are a ReplacingMergeTree ordered by (occurred_at, event_id), so FINAL reads
 *     each event once, and the events of one second sit together;
 *   - after a batch's event rows are written, each second they touched is summed again from
 *     those rows (`figures_by_second`), then each day those seconds fall in is summed again
 *     from the seconds (`figures_by_day`); both are ReplacingMergeTrees by version, so a row
 *     replaces the one before it.
 * A redelivered batch therefore writes the same sums again. The cost of a batch is bounded by
 * the events of the seconds it touched and the seconds of one day, however large the store.
 *
 * Versions: a sum is taken after the writes below it finished, and stamped with a version taken
 * just before it is sent, increasing within the process (`nextSumVersion`). Of two sums of one
 * bucket, the later-stamped one read everything the earlier one read, so the row that FINAL
 * keeps is complete. (Across processes this leans on their clocks agreeing to the millisecond:
 * see ADR 0057.)
 */
import {
  type AnalyticsStore,
  identifier,
  joinSql,
  nextSumVersion,
  sql,
  sqlList,
  type Sql,
} from "@commerce/runtime/analytics";
import { formatDate } from "@commerce/runtime/time";

/** The event tables, by the family of events each holds. */
export const eventTables = {
  /** USER_REGISTERED and USER_DELETED. */
  users: "user_event_rows",
  /** ORDER_PLACED and ORDER_STATUS_UPDATED. */
  orders: "order_event_rows",
  /** PAYMENT_SUCCESS. */
  payments: "payment_event_rows",
} as const;

export type EventFamily = keyof typeof eventTables;
export type EventTable = (typeof eventTables)[EventFamily];

export const rollupTables = { bySecond: "figures_by_second", byDay: "figures_by_day" } as const;

/** The counters both rollup tables carry, one Int64 column each. */
export const counters = [
  "users_registered",
  "users_deleted",
  "orders_placed",
  "orders_created",
  "orders_confirmed",
  "orders_cancelled",
  "payments_succeeded",
  "revenue_minor",
] as const;

export type Counter = (typeof counters)[number];

const placement = sql`event_type = 'ORDER_PLACED'`;
const statusUpdate = sql`event_type = 'ORDER_STATUS_UPDATED'`;

/** What one order status gains from a second's order events: arrivals minus departures. */
function netOrders(status: string): Sql {
  return sql`toInt64(countIf(${placement} AND status = ${status}) + countIf(${statusUpdate} AND status = ${status})) - toInt64(countIf(${statusUpdate} AND previous_status = ${status}))`;
}

/** Each family's counters, summed over its event rows of one second; the others are 0. */
const sumsOfFamily: Readonly<Record<EventFamily, Partial<Record<Counter, Sql>>>> = {
  users: {
    users_registered: sql`toInt64(countIf(event_type = 'USER_REGISTERED'))`,
    users_deleted: sql`toInt64(countIf(event_type = 'USER_DELETED'))`,
  },
  orders: {
    orders_placed: sql`toInt64(countIf(${placement}))`,
    orders_created: netOrders("CREATED"),
    orders_confirmed: netOrders("CONFIRMED"),
    orders_cancelled: netOrders("CANCELLED"),
  },
  payments: {
    payments_succeeded: sql`toInt64(countIf(event_type = 'PAYMENT_SUCCESS'))`,
    revenue_minor: sql`sumIf(amount_minor, event_type = 'PAYMENT_SUCCESS')`,
  },
};

const counterColumns = joinSql(
  counters.map((counter) => identifier(counter)),
  sql`, `,
);

/**
 * Sums `family`'s event rows into `figures_by_second`, for the seconds `where` selects (an
 * expression on `occurred_at`).
 */
export function sumSeconds(family: EventFamily, where: Sql, version: number): Sql {
  const sums = counters.map((counter) => sumsOfFamily[family][counter] ?? sql`toInt64(0)`);
  return sql`INSERT INTO figures_by_second (family, second, version, ${counterColumns})
    SELECT ${family}, occurred_at, ${version}, ${joinSql(sums, sql`, `)}
    FROM ${identifier(eventTables[family])} FINAL
    WHERE ${where}
    GROUP BY occurred_at`;
}

/** Sums `family`'s seconds into `figures_by_day`, for the seconds `where` selects. */
export function sumDays(family: EventFamily, where: Sql, version: number): Sql {
  const sums = counters.map((counter) => sql`sum(${identifier(counter)})`);
  return sql`INSERT INTO figures_by_day (family, day, version, ${counterColumns})
    SELECT family, toDate(second) AS day, ${version}, ${joinSql(sums, sql`, `)}
    FROM figures_by_second FINAL
    WHERE family = ${family} AND (${where})
    GROUP BY family, day`;
}

const dayMs = 86_400_000;

/**
 * Buckets per statement: a statement's text must stay under the server's `max_query_size`
 * (256 KiB by default); a second is 12 bytes of it, a day about 130.
 */
const secondsPerStatement = 10_000;
const daysPerStatement = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/**
 * Exactly the seconds `sorted` (ascending epoch seconds), as a condition on `occurred_at`: a set
 * lookup per row, within the index range from the first to the last. A disjunction of ranges
 * costs a comparison per range per row instead (hundreds of ranges took seconds a batch when a
 * backlog spread a partition's batch over a week); the bounds keep a batch of a recent stretch
 * on the tail of the table.
 */
function theSeconds(sorted: readonly number[]): Sql {
  const first = sorted[0] ?? 0;
  const last = sorted.at(-1) ?? first;
  return sql`occurred_at >= ${new Date(first * 1_000)} AND occurred_at <= ${new Date(last * 1_000)}
    AND toUInt32(occurred_at) IN ${sqlList(sorted)}`;
}

/** The seconds of the UTC days `days` (YYYY-MM-DD), as a condition on `second`. */
function secondsOfDays(days: readonly string[]): Sql {
  return joinSql(
    days.map((day) => {
      const start = new Date(`${day}T00:00:00Z`);
      return sql`(second >= ${start} AND second < ${new Date(start.getTime() + dayMs)})`;
    }),
    sql` OR `,
  );
}

/**
 * Sums again the seconds in `seconds` (times of `family`'s events just written, to the second),
 * then their days. Resolves once both are written.
 */
export async function refreshRollups(
  store: AnalyticsStore,
  family: EventFamily,
  seconds: readonly Date[],
  signal?: AbortSignal,
): Promise<void> {
  if (seconds.length === 0) return;
  const epochSeconds = [...new Set(seconds.map((second) => Math.floor(second.getTime() / 1_000)))].sort(
    (a, b) => a - b,
  );
  for (const some of chunks(epochSeconds, secondsPerStatement)) {
    await store.command(sumSeconds(family, theSeconds(some), nextSumVersion()), signal);
  }
  const days = [...new Set(epochSeconds.map((second) => formatDate(new Date(second * 1_000))))];
  for (const some of chunks(days, daysPerStatement)) {
    await store.command(sumDays(family, secondsOfDays(some), nextSumVersion()), signal);
  }
}

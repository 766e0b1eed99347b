/**
 * A process's copy of the rankings (`recommendation_rankings`, ranking-refresh.ts), so that a read
 * names products without a statement: the analytics store answers a lookup in milliseconds at
 * best, and chDB runs one statement at a time, so four callers queue behind each other
 * (ADR 0098).
 *
 * - The lists about products are held whole: a few thousand products' rankings are a few
 *   megabytes.
 * - Customers' purchases are held for at most `customersHeld` customers: those stamped last at
 *   start, then those asked about, the one asked about longest ago let go first. One not held is
 *   read from the store by key once, then held (nothing bought included); those asked while a
 *   read runs are read together next, so that callers queue behind one statement, not each
 *   other's. The polls keep the customers held up to date and take no others, however many
 *   customers order.
 *
 * It loads every product list and the customers last stamped at `start`, then asks every
 * `pollMs` which rankings were stamped in the last `windowMs` (10 s) at a later version than it
 * holds, and takes those. A ranking's version is stamped before it is computed and it lands when
 * its insert is acknowledged: the window covers that time, so a ranking that lands after a
 * later-stamped one is still seen. Every `reloadMs` it takes every product list again and the
 * purchases stamped in twice that time, which bounds what a computation longer than the window
 * could leave stale.
 */
import { type AnalyticsStore, joinSql, sql, sqlList, type Sql } from "@commerce/runtime/analytics";
import { createBatchedLookup } from "@commerce/runtime/concurrency";
import { createPeriodicTask } from "@commerce/runtime/background";
import type { EventLogger } from "@commerce/runtime/events";
import { decodeRanked, purchasesList, type Ranked, type RankingList } from "./rankings.js";

export interface Ranking {
  readonly ranked: Ranked;
  /** An `also` ranking's product's category ('' when unknown). */
  readonly category: string;
}

export interface RankingsReplica {
  /** The latest ranking of `list` for `subject` this copy has seen; undefined when none. */
  get(list: RankingList, subject: string): Ranking | undefined;
  /** The products `customer` bought (`purchasesList`), as held, or read from the store once. */
  purchases(customer: string, signal?: AbortSignal): Promise<readonly string[]>;
  /** Loads every product list and the customers last stamped, then keeps polling. */
  start(): Promise<void>;
  /** Takes what changed now (tests and benches, after a batch). */
  refresh(): Promise<void>;
  /** Stops polling, once a poll in flight has ended. */
  stop(): Promise<void>;
}

export interface ReplicaOptions {
  /** Where a polling outage is told, once when it begins and once when it ends. */
  readonly logger: EventLogger;
  readonly pollMs?: number;
  readonly windowMs?: number;
  readonly reloadMs?: number;
  /** The most customers whose purchases are held (`defaultCustomersHeld`). */
  readonly customersHeld?: number;
}

type Row = { list: string; subject: string; ranked: string; category: string; latest: string };

interface Held<T> {
  readonly version: bigint;
  readonly value: T;
}

const key = (list: string, subject: string): string => `${list}\n${subject}`;

/** Keys per statement: its text stays far under ClickHouse's 256 KiB. */
const keysPerStatement = 2_000;

const productLists = sql`WHERE list != ${purchasesList}`;

/** How many customers' purchases a copy holds unless told (about 56 MB, docs/benchmarks.md). */
export const defaultCustomersHeld = 100_000;

export function createRankingsReplica(store: AnalyticsStore, options: ReplicaOptions): RankingsReplica {
  const pollMs = options.pollMs ?? 250;
  const windowMs = options.windowMs ?? 10_000;
  const reloadMs = options.reloadMs ?? 300_000;
  const customersHeld = options.customersHeld ?? defaultCustomersHeld;
  const rankings = new Map<string, Held<Ranking>>();
  /** In the order last asked about or changed, the earliest first: the first to let go. */
  const customers = new Map<string, Held<readonly string[]>>();
  /** One string per product id, however many customers' purchases name it. */
  const productIds = new Map<string, string>();
  let lastLoad = 0;

  const known = (list: string, subject: string): bigint | undefined =>
    (list === purchasesList ? customers.get(subject) : rankings.get(key(list, subject)))?.version;

  /** Holds `purchases` as the customer's latest, letting go of the one asked about longest ago. */
  function hold(customer: string, purchases: Held<readonly string[]>): void {
    customers.delete(customer);
    customers.set(customer, purchases);
    if (customers.size > customersHeld) customers.delete(customers.keys().next().value ?? "");
  }

  function intern(id: string): string {
    const held = productIds.get(id);
    if (held !== undefined) return held;
    productIds.set(id, id);
    return id;
  }

  /** The latest of each ranking `where` selects (on their key, or all), in the order `tail` gives. */
  const select = (where: Sql, tail: Sql, signal?: AbortSignal): Promise<Row[]> =>
    store.query<Row>(
      sql`SELECT list, subject, argMax(ranked, version) AS ranked, argMax(category, version) AS category,
          toString(max(version)) AS latest
        FROM recommendation_rankings ${where} GROUP BY list, subject ${tail}`,
      signal,
    );

  /** A `bought` row's products, one string per id. */
  const productsOf = (row: Row): readonly string[] => decodeRanked(row.ranked).map(([id]) => intern(id));

  /**
   * Whether a ranking stamped at `latest` is one to take: a later version of one held, or of any
   * product list (and, with `anyCustomer`, of any customer's purchases).
   */
  const wanted = (row: { list: string; subject: string }, latest: bigint, anyCustomer = false): boolean =>
    row.list === purchasesList && !anyCustomer && !customers.has(row.subject)
      ? false
      : (known(row.list, row.subject) ?? -1n) < latest;

  /** Holds each of `rows` that is `wanted`, in turn. */
  function takeRows(rows: readonly Row[], anyCustomer = false): void {
    for (const row of rows) {
      const version = BigInt(row.latest);
      if (!wanted(row, version, anyCustomer)) continue;
      if (row.list === purchasesList) hold(row.subject, { version, value: productsOf(row) });
      else {
        const ranking = { ranked: decodeRanked(row.ranked), category: row.category };
        rankings.set(key(row.list, row.subject), { version, value: ranking });
      }
    }
  }

  /** Customers not held, read by key, those asked while a read runs together in the next. */
  const notHeld = createBatchedLookup<string, Held<readonly string[]>>(async (keys, signal) => {
    const rows = await select(
      sql`WHERE list = ${purchasesList} AND subject IN ${sqlList(keys)}`,
      sql``,
      signal,
    );
    return new Map(rows.map((row) => [row.subject, { version: BigInt(row.latest), value: productsOf(row) }]));
  }, keysPerStatement);

  const take = async (where: Sql, signal?: AbortSignal): Promise<void> =>
    takeRows(await select(where, sql``, signal));

  /**
   * The purchases stamped at or after `since` (µs), of the customers held at most, the latest held
   * last; of any customer with `anyCustomer`, else of those held.
   */
  async function takePurchases(since: number, anyCustomer: boolean): Promise<void> {
    const latestFirst = await select(
      sql`WHERE list = ${purchasesList} AND version >= ${since}`,
      sql`ORDER BY max(version) DESC LIMIT ${customersHeld}`,
    );
    takeRows(latestFirst.reverse(), anyCustomer);
  }

  /** Which rankings were stamped within the window at a later version than this copy holds, then those. */
  async function takeRecent(): Promise<void> {
    const stamped = await store.query<{ list: string; subject: string; latest: string }>(
      sql`SELECT list, subject, toString(max(version)) AS latest FROM recommendation_rankings
        WHERE version > ${(Date.now() - windowMs) * 1_000} GROUP BY list, subject`,
    );
    const newer = stamped.filter((row) => wanted(row, BigInt(row.latest)));
    for (let start = 0; start < newer.length; start += keysPerStatement) {
      const some = newer.slice(start, start + keysPerStatement);
      await take(
        sql`WHERE (list, subject) IN (${joinSql(
          some.map((row) => sql`(${row.list}, ${row.subject})`),
          sql`, `,
        )})`,
      );
    }
  }

  async function poll(): Promise<void> {
    const now = Date.now();
    if (now - lastLoad >= reloadMs) {
      lastLoad = now;
      await take(productLists);
      await takePurchases((now - 2 * reloadMs) * 1_000, false);
    } else {
      await takeRecent();
    }
  }

  const polling = createPeriodicTask({
    intervalMs: pollMs,
    run: poll,
    logger: options.logger,
    failureMessage: "recommendation rankings could not be read; the copy keeps what it has",
    recoveryMessage: "recommendation rankings are read again",
  });

  return {
    get: (list, subject) => rankings.get(key(list, subject))?.value,
    async purchases(customer, signal) {
      const held = customers.get(customer);
      if (held !== undefined) {
        hold(customer, held);
        return held.value;
      }
      // Nothing stored: nothing bought yet, held at version 0 so that any list stamped later wins.
      let latest = (await notHeld.get(customer, signal)) ?? { version: 0n, value: [] };
      // A poll may have taken a later list while this one was read.
      const taken = customers.get(customer);
      if (taken !== undefined && taken.version >= latest.version) latest = taken;
      hold(customer, latest);
      return latest.value;
    },
    async start() {
      lastLoad = Date.now();
      await take(productLists);
      await takePurchases(0, true);
      polling.start();
    },
    refresh: poll,
    stop: () => polling.stop(),
  };
}

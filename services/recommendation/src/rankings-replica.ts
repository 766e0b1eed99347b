/**
 * A process's copy of the rankings (`recommendation_rankings`, ranking-refresh.ts), so that a read
 * names products without a statement: the analytics store answers a lookup in milliseconds at
 * best, and chDB runs one statement at a time, so four callers queue behind each other
 * (ADR 0098). A few thousand products' rankings are a few megabytes.
 *
 * It loads every ranking at `start`, then asks every `pollMs` which rankings were stamped in the
 * last `windowMs` (10 s) at a later version than it holds, and takes those. A ranking's version
 * is stamped before it is computed and it lands when its insert is acknowledged: the window
 * covers that time, so a ranking that lands after a later-stamped one is still seen. A full load every `reloadMs`
 * bounds what a computation longer than the window could leave stale.
 */
import { type AnalyticsStore, joinSql, sql, type Sql } from "@commerce/runtime/analytics";
import { createPeriodicTask } from "@commerce/runtime/background";
import type { EventLogger } from "@commerce/runtime/events";
import { decodeRanked, type Ranked, type RankingList } from "./rankings.js";

export interface Ranking {
  readonly ranked: Ranked;
  /** An `also` ranking's product's category ('' when unknown). */
  readonly category: string;
}

export interface RankingsReplica {
  /** The latest ranking of `list` for `subject` this copy has seen; undefined when none. */
  get(list: RankingList, subject: string): Ranking | undefined;
  /** Loads every ranking, then keeps polling. */
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
}

type Row = { list: string; subject: string; ranked: string; category: string; latest: string };

const key = (list: string, subject: string): string => `${list}\n${subject}`;

/** Keys per statement: its text stays far under ClickHouse's 256 KiB. */
const keysPerStatement = 2_000;

export function createRankingsReplica(store: AnalyticsStore, options: ReplicaOptions): RankingsReplica {
  const pollMs = options.pollMs ?? 250;
  const windowMs = options.windowMs ?? 10_000;
  const reloadMs = options.reloadMs ?? 300_000;
  const rankings = new Map<string, { version: bigint; ranking: Ranking }>();
  let lastLoad = 0;

  /** Takes the latest of the rankings `where` selects (on their key, or all). */
  async function take(where: Sql): Promise<void> {
    const rows = await store.query<Row>(
      sql`SELECT list, subject, argMax(ranked, version) AS ranked, argMax(category, version) AS category,
          toString(max(version)) AS latest
        FROM recommendation_rankings ${where} GROUP BY list, subject`,
    );
    for (const row of rows) {
      const version = BigInt(row.latest);
      const known = rankings.get(key(row.list, row.subject));
      if (known !== undefined && known.version >= version) continue;
      rankings.set(key(row.list, row.subject), {
        version,
        ranking: { ranked: decodeRanked(row.ranked), category: row.category },
      });
    }
  }

  /** Which rankings were stamped within the window at a later version than this copy holds, then those. */
  async function takeRecent(): Promise<void> {
    const stamped = await store.query<{ list: string; subject: string; latest: string }>(
      sql`SELECT list, subject, toString(max(version)) AS latest FROM recommendation_rankings
        WHERE version > ${(Date.now() - windowMs) * 1_000} GROUP BY list, subject`,
    );
    const newer = stamped.filter(
      (row) => (rankings.get(key(row.list, row.subject))?.version ?? -1n) < BigInt(row.latest),
    );
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
      await take(sql``);
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
    get: (list, subject) => rankings.get(key(list, subject))?.ranking,
    async start() {
      lastLoad = Date.now();
      await take(sql``);
      polling.start();
    },
    refresh: poll,
    stop: () => polling.stop(),
  };
}

/**
 * The analytics schema, created and migrated at start: an ordered list of migrations, each
 * applied once, with the version reached recorded in the store itself (`schema_version`, or
 * a table of its own for another owner of tables in the same store, such as the
 * Recommendation service).
 *
 * Safe when several processes start at once (the stream processor and the Analytics service,
 * replicas of either): there is no lock to take, since neither engine has transactions, so
 *   - every statement must be idempotent (`CREATE TABLE IF NOT EXISTS`, `DROP … IF EXISTS`):
 *     two processes may both run a migration, and one that died half-way runs it again;
 *   - the version rows live in a ReplacingMergeTree ordered by version, so a version recorded
 *     twice is one row under FINAL, and the current version is their maximum either way.
 * ClickHouse 18.16 has no `ADD COLUMN IF NOT EXISTS`: a later column is added by a new table
 * (or a statement that tolerates its own repetition), never by a bare `ADD COLUMN`.
 */
import type { AnalyticsStore } from "./analytics-store.js";
import { identifier, sql, type Sql } from "./sql.js";

export interface AnalyticsMigration {
  /** 1 for the first, then one more for each. */
  readonly version: number;
  /** What it does, kept with the version row. */
  readonly description: string;
  /** Idempotent statements, run in order. */
  readonly statements: readonly Sql[];
}

/** The table the Analytics service's versions are recorded in; another owner names its own. */
const analyticsVersionTable = "schema_version";

const createVersionTable = (table: string): Sql => sql`CREATE TABLE IF NOT EXISTS ${identifier(table)} (
  version UInt32,
  description String,
  applied_at DateTime('UTC')
) ENGINE = ReplacingMergeTree() ORDER BY version`;

/** The highest version recorded in `versionTable`, 0 for a new store. */
export async function schemaVersion(
  store: AnalyticsStore,
  versionTable = analyticsVersionTable,
): Promise<number> {
  const [row] = await store.query<{ version: number }>(
    sql`SELECT max(version) AS version FROM ${identifier(versionTable)}`,
  );
  return row?.version ?? 0;
}

/**
 * Applies the migrations the store has not recorded yet, in order, and returns the version it
 * is at then (the last migration's, or a higher one that a newer build recorded). Throws
 * `AnalyticsStoreError` when a statement fails; the versions before it stay recorded, and the
 * next start resumes from there.
 */
export async function migrateAnalyticsStore(
  store: AnalyticsStore,
  migrations: readonly AnalyticsMigration[],
  versionTable = analyticsVersionTable,
): Promise<number> {
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1) {
      throw new TypeError(
        `analytics migration ${i + 1} has version ${migration.version}: number them 1, 2, 3…`,
      );
    }
  });
  await store.command(createVersionTable(versionTable));
  let current = await schemaVersion(store, versionTable);
  for (const migration of migrations.slice(current)) {
    for (const statement of migration.statements) await store.command(statement);
    await store.command(
      sql`INSERT INTO ${identifier(versionTable)} (version, description, applied_at) VALUES (${migration.version}, ${migration.description}, now())`,
    );
    current = migration.version;
  }
  return current;
}

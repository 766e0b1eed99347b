/**
 * `@commerce/runtime/analytics`: the analytics-store port, its schema migrations, safe SQL, and
 * the ClickHouse adapter (chDB is loaded on demand by the settings).
 */
export * from "./analytics-migrations.js";
export * from "./analytics-store.js";
export * from "./analytics-store-error.js";
export * from "./analytics-store-settings.js";
export * from "./clickhouse-analytics-store.js";
export * from "./sql.js";
export * from "./store-consumer.js";
export * from "./sum-version.js";
export * from "./with-own-store.js";

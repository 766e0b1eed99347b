/**
 * `@commerce/analytics`: the Analytics service's module, and what benchmarks and the crash suite
 * read of it (its schema, its event tables, its figures). The stream processor is
 * `@commerce/analytics/processor`; both processes start by path (main.ts).
 */
export { buildAnalyticsService, type AnalyticsOptions } from "./analytics-module.js";
export { createAnalyticsFigures, type AnalyticsFigures, type OrderFigures } from "./analytics-figures.js";
export { eventTables } from "./analytics-rollups.js";
export { analyticsMigrations } from "./analytics-schema.js";

/**
 * `@commerce/analytics/testing`: test support for specs of other packages; never imported by
 * production code.
 */
export * from "./analytics-events.js";

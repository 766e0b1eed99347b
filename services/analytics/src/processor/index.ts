/**
 * `@commerce/analytics/processor`: the stream processor's module, its consumer group and its
 * batch handler.
 */
export { buildAnalyticsProcessor, processorGroup, type ProcessorOptions } from "./processor-module.js";
export { createStreamProcessor } from "./stream-processor.js";

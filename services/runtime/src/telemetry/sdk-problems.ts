/**
 * The OpenTelemetry SDK's own warnings and errors in the process's log: an export the collector
 * refused or never answered, spans dropped because the batch queue was full
 * (`OTEL_BSP_MAX_QUEUE_SIZE`). The SDK reports them only through the API's diagnostic logger,
 * which is silent until one is set, so a platform whose traces stopped arriving would say
 * nothing of why. One per process (the diagnostic logger is global); below warnings, nothing.
 */
import { diag, DiagLogLevel, type DiagLogFunction } from "@opentelemetry/api";
import { inspect } from "node:util";
import type { Logger } from "../logging/logger.js";

export function reportSdkProblems(logger: Logger): void {
  const log = logger.child({ component: "opentelemetry" });
  const to =
    (level: "error" | "warn"): DiagLogFunction =>
    (message, ...args) => {
      const details = args.map((arg) => (typeof arg === "string" ? arg : inspect(arg, { depth: 3 })));
      log[level](details.length === 0 ? {} : { details }, message);
    };
  const ignore: DiagLogFunction = () => undefined;
  diag.setLogger(
    { error: to("error"), warn: to("warn"), info: ignore, debug: ignore, verbose: ignore },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}

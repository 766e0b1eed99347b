/**
 * Structured JSON logs (pino), one line per event. The process logger carries the process name;
 * each service logs through a child bound to `{ service }`. Created from configuration at
 * start; never at import time. A line written while a span is active carries its `trace_id` and
 * `span_id` (read from the active context; nothing when tracing is off).
 */
import { context, isSpanContextValid, trace } from "@opentelemetry/api";
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import type { LogLevel } from "../config/process-settings.js";

export type { Logger };

/** `destination`: where lines go (default stdout; tests read them). */
export function createLogger(level: LogLevel, name: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceIds,
    // Never log credentials or tokens, wherever they sit in a logged object.
    redact: {
      paths: ["password", "*.password", "token", "*.token", "authorization", "*.authorization"],
      censor: "[redacted]",
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/** The ids of the active span, for correlating logs with traces (a new object: pino merges into it). */
function traceIds(): object {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

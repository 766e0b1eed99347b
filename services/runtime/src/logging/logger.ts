/**
 * Structured JSON logs (pino), one line per event. The process logger carries the process name;
 * each service logs through a child bound to `{ service }`. Created from configuration at
 * start; never at import time. A line about a traced call carries its span's `trace_id` and
 * `span_id`: the line's object names the call by its `signal` (the request's or the record's,
 * never written out), whose span the call bound to it (telemetry/trace-context.ts); or it
 * spreads `traceIdsOf(context)` itself. Nothing when tracing is off.
 */
import { isSpanContextValid, trace, type Context } from "@opentelemetry/api";
import { traceContextOf } from "../telemetry/trace-context.js";
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
    mixin: traceIdsOfLine,
    // A call's signal names its trace (above); the signal itself says nothing to a reader.
    serializers: { signal: () => undefined },
    // Never log credentials or tokens, wherever they sit in a logged object.
    redact: {
      paths: ["password", "*.password", "token", "*.token", "authorization", "*.authorization"],
      censor: "[redacted]",
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/** The ids of the span of the call a line names by its `signal`. */
function traceIdsOfLine(line: object): object {
  const { signal } = line as { signal?: unknown };
  return signal instanceof AbortSignal ? traceIdsOf(traceContextOf(signal)) : {};
}

/**
 * The ids of the span of `ctx`, for correlating a log line with its trace; none without a span
 * (a new object: pino merges into it).
 */
export function traceIdsOf(ctx: Context | undefined): { trace_id?: string; span_id?: string } {
  const ids = ctx === undefined ? undefined : trace.getSpan(ctx)?.spanContext();
  return ids !== undefined && isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

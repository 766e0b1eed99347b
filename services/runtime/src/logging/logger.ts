/**
 * Structured JSON logs (pino), one line per event. The process logger carries the process name;
 * each service logs through a child bound to `{ service }`. Created from configuration at
 * start; never at import time.
 */
import { pino, type Logger } from "pino";
import type { LogLevel } from "../config/process-settings.js";

export type { Logger };

export function createLogger(level: LogLevel, name: string): Logger {
  return pino({
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Never log credentials or tokens, wherever they sit in a logged object.
    redact: {
      paths: ["password", "*.password", "token", "*.token", "authorization", "*.authorization"],
      censor: "[redacted]",
    },
  });
}

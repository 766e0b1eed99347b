/** A logger whose lines a test reads back, each parsed from its JSON. */
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../logging/logger.js";

export function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line !== "") lines.push(JSON.parse(line) as never);
      done();
    },
  });
  return { logger: createLogger("info", "test", sink), lines };
}

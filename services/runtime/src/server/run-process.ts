/**
 * How every process of the platform starts (a service, the stream processor, the `web`
 * process): `start` reads the configuration, builds and listens; a bad configuration exits 2
 * with one line per problem, any other failure to start exits 1 with its causes. Once started,
 * the process ends on SIGTERM or SIGINT (shutdown-on-signals.ts).
 */
import { inspect } from "node:util";
import { ConfigError } from "../config/env-reader.js";

/** How long requests in flight may take to finish on SIGTERM before they are cut. */
export const shutdownGraceMs = 10_000;

/** Runs `start`; exits 2 on bad configuration, 1 on any other failure to start. */
export function runProcess(name: string, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${name}: failed to start: ${withCauses(error)}\n`);
    process.exit(1);
  });
}

/** An error's message followed by its causes' (an adapter's error wraps the driver's). */
function withCauses(error: unknown): string {
  const messages: string[] = [];
  for (let current = error; current !== undefined && messages.length < 5;) {
    messages.push(current instanceof Error ? current.message : inspect(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(": ");
}

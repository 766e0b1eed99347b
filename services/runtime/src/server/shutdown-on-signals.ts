import type { Logger } from "../logging/logger.js";

/**
 * How every process of the platform ends on SIGTERM (Kubernetes, `cluster:down`, a `kill` of
 * `npm start`) or SIGINT (Ctrl-C): once, by running `shutdown` (stop serving, let work in flight
 * finish, close connections), then exiting 0, or 1 if the shutdown failed.
 *
 * The handlers stay installed while the shutdown runs, so that a signal arriving meanwhile
 * changes nothing. Ctrl-C on `npm start` delivers SIGINT twice: from the terminal to the whole
 * foreground group, and from npm, which forwards the signals it gets to its child (the platform,
 * which the start script `exec`s). With a handler removed after the first, the second would
 * take the default action and kill the process in the middle of its shutdown.
 */
export function shutdownOnSignals(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

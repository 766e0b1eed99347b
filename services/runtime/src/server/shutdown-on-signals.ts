import type { Logger } from "../logging/logger.js";

/**
 * How every process of the platform ends on SIGTERM (Kubernetes, `cluster:down`) or SIGINT
 * (Ctrl-C): once, by running `shutdown` (stop serving, let work in flight finish, close
 * connections), then exiting 0, or 1 if the shutdown failed.
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
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

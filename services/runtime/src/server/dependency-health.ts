/**
 * Readiness of a process that runs services: what every one of them depends on, its document
 * store and its event bus, answers (ADR 0112). Each is pinged every 2 s, with a timeout of its
 * adapter's (3 s: a server that accepts connections and answers nothing is not answering), and
 * a failed ping is confirmed by another half a second later, so `/readyz` and gRPC health turn
 * not ready within about 9 s of an outage (about 3 s when connections are refused), never on one
 * slow answer, and ready again by themselves about 2 s after it ends; each change is logged once. The embedded store and
 * bus are in the process and always answer. A dependency only one service has (the analytics
 * store) is that module's own `isHealthy`.
 */
import type { EventBus } from "../events/event-bus.js";
import type { Logger } from "../logging/logger.js";
import type { StoreProvider } from "../store/document-store.js";
import { createHealthWatch, type HealthWatch } from "./health-watch.js";

export interface DependencyHealthOptions {
  readonly stores: Pick<StoreProvider, "ping">;
  readonly bus: Pick<EventBus, "ping">;
  readonly logger: Logger;
  /** Pause between two pings of each dependency (default 2 s). */
  readonly intervalMs?: number;
}

export function createDependencyHealth(options: DependencyHealthOptions): HealthWatch {
  const intervalMs = options.intervalMs ?? 2_000;
  const recheckMs = 500;
  const watches = [
    createHealthWatch({
      name: "document store",
      check: () => options.stores.ping(),
      intervalMs,
      recheckMs,
      logger: options.logger,
    }),
    createHealthWatch({
      name: "event bus",
      check: () => options.bus.ping(),
      intervalMs,
      recheckMs,
      logger: options.logger,
    }),
  ];
  return {
    async start() {
      await Promise.all(watches.map((watch) => watch.start()));
    },
    healthy: () => watches.every((watch) => watch.healthy()),
    stop() {
      for (const watch of watches) watch.stop();
    },
  };
}

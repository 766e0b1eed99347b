import type { Transport } from "@connectrpc/connect";
import type { PlatformConfig } from "../config/platform-config.js";
import type { EventBus } from "../events/event-bus.js";
import type { Logger } from "../logging/logger.js";
import type { DocumentStore } from "../store/document-store.js";
import type { Clock } from "../time/wall-clock.js";
import type { ServiceRoutes } from "./service-host.js";

/**
 * What every service needs from its process, whichever mode runs it. Handlers and domain code
 * see only these ports, never the adapters behind them (DESIGN.md §6).
 */
export interface ServiceContext {
  readonly config: PlatformConfig;
  readonly logger: Logger;
  /** The service's own database. */
  readonly store: DocumentStore;
  readonly bus: EventBus;
  /** Reaches the other services' internal RPCs. */
  readonly transport: Transport;
  readonly clock: Clock;
}

/** A built service: its RPC routes and its background work (outbox relay, consumers, bootstrap). */
export interface ServiceModule extends ServiceRoutes {
  readonly name: string;
  /** Starts background work; resolves once the service can serve. */
  start(): Promise<void>;
  /** Stops background work, letting work in flight finish. */
  stop(): Promise<void>;
}

import type { Transport } from "@connectrpc/connect";
import type { EventBus } from "../events/event-bus.js";
import type { Logger } from "../logging/logger.js";
import type { DocumentStore } from "../store/document-store.js";
import type { ServiceTelemetry } from "../telemetry/telemetry.js";
import type { Clock } from "../time/wall-clock.js";
import type { ServiceRoutes } from "./service-host.js";

/**
 * What every service needs from its process, whichever mode runs it. Handlers and domain code
 * see only these ports, never the adapters behind them (ADR 0019). A
 * service's own settings are not here: its build function takes them, typed, from whatever read
 * them (its own process, or the embedded platform).
 */
export interface ServiceContext {
  readonly logger: Logger;
  /** The service's own database. */
  readonly store: DocumentStore;
  readonly bus: EventBus;
  /** Reaches the internal RPCs of the peers it calls, with its own credential for each. */
  readonly transport: Transport;
  readonly clock: Clock;
  /** The service's own tracer (`commerce-<name>`); a no-op when tracing is off. */
  readonly telemetry: ServiceTelemetry;
}

/** A built service: its RPC routes and its background work (outbox relay, consumers, bootstrap). */
export interface ServiceModule extends ServiceRoutes {
  readonly name: string;
  /** Starts background work; resolves once the service can serve. */
  start(): Promise<void>;
  /** Stops background work, letting work in flight finish. */
  stop(): Promise<void>;
  /**
   * Whether a dependency only this service has (the Analytics service's store) answered when
   * last checked; readiness (`/readyz`, gRPC health) is false while it is not. Absent: the
   * service has none beyond what every service shares. Cheap and synchronous: probes call it.
   */
  readonly isHealthy?: () => boolean;
}

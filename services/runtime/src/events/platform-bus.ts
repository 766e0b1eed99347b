/**
 * The event bus a deployment's settings select: Kafka when KAFKA_BROKERS is set, otherwise the
 * embedded bus whose log lives under `DATA_DIR/events`. One place decides, so whatever reads the
 * log later (the analytics rebuild) finds the one the platform wrote.
 */
import { join } from "node:path";
import type { BusSettings } from "../config/process-settings.js";
import type { Logger } from "../logging/logger.js";
import { createEmbeddedBus } from "./embedded-bus.js";
import type { EventBus } from "./event-bus.js";
import { createKafkaBus } from "./kafka-bus.js";

export function openPlatformBus(options: {
  readonly infra: BusSettings;
  readonly dataDir: string;
  /** Kafka's client id, such as `commerce-platform`. */
  readonly clientId: string;
  readonly logger: Logger;
}): Promise<EventBus> {
  const { infra, logger } = options;
  if (infra.kafkaBrokers === undefined) {
    return createEmbeddedBus({ dataDir: join(options.dataDir, "events"), logger });
  }
  return createKafkaBus({
    brokers: infra.kafkaBrokers,
    clientId: options.clientId,
    partitions: infra.kafkaPartitions,
    logger: logger.child({ component: "kafka" }),
  });
}

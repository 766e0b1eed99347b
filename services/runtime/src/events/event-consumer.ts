/**
 * How every service consumes: a consumer group on the bus, each handler wrapped in the shared
 * retry policy, and records that still fail parked on the group's dead-letter topic so one bad
 * record never stops a partition. The handler itself is idempotent by event id.
 */
import { createDeadLetterPublisher } from "./dead-letter-publisher.js";
import type { EventBus, EventHandler, Subscription } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import { withRetries } from "./retrying-handler.js";

export interface ConsumerOptions {
  readonly group: string;
  readonly topics: readonly string[];
  readonly handler: EventHandler;
  readonly logger: EventLogger;
  /** Attempts before dead-lettering; 8 by default (about 25 s of backoff in total). */
  readonly attempts?: number;
}

export function startConsumer(bus: EventBus, options: ConsumerOptions): Promise<Subscription> {
  return bus.subscribe({
    group: options.group,
    topics: options.topics,
    handler: withRetries(options.handler, {
      attempts: options.attempts ?? 8,
      baseDelayMs: 200,
      maxDelayMs: 10_000,
      deadLetter: createDeadLetterPublisher(bus, options.group, options.logger),
      logger: options.logger,
    }),
  });
}

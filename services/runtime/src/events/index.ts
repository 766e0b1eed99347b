/**
 * `@commerce/runtime/events`: the event-bus port and its adapters, event records, the outbox and
 * its relay, consumers.
 */
export * from "./dead-letter-publisher.js";
export * from "./embedded-bus.js";
export * from "./event-bus.js";
export * from "./event-consumer.js";
export * from "./event-factory.js";
export * from "./event-logger.js";
export * from "./event-topics.js";
export * from "./kafka-bus.js";
export * from "./kafkajs-request-queue.js";
export * from "./outbox.js";
export * from "./outbox-relay.js";
export * from "./permanent-event-error.js";
export * from "./platform-bus.js";
export * from "./recorded-collection.js";
export * from "./service-outbox.js";

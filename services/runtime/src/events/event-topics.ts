/**
 * The topics of the contract's events (`auth-events`, `product-events`, `order-events`,
 * `payment-events`), read from the payload messages in `proto/commerce/events/v1`: each names
 * its topic in `(commerce.options.v1.event)`, so the list lives once, in proto, and a bus that
 * creates its topics up front (Kafka) needs no hand-written copy of it.
 */
import { hasOption, type DescFile } from "@bufbuild/protobuf";
import { file_commerce_events_v1_auth_events } from "../../gen/commerce/events/v1/auth_events_pb.js";
import { file_commerce_events_v1_order_events } from "../../gen/commerce/events/v1/order_events_pb.js";
import { file_commerce_events_v1_payment_events } from "../../gen/commerce/events/v1/payment_events_pb.js";
import { file_commerce_events_v1_product_events } from "../../gen/commerce/events/v1/product_events_pb.js";
import { event as eventOption } from "../../gen/commerce/options/v1/options_pb.js";
import { eventContract } from "./event-factory.js";

const eventFiles: readonly DescFile[] = [
  file_commerce_events_v1_auth_events,
  file_commerce_events_v1_product_events,
  file_commerce_events_v1_order_events,
  file_commerce_events_v1_payment_events,
];

/** Every event topic, each once, sorted. */
export function eventTopics(): string[] {
  const topics = new Set<string>();
  for (const file of eventFiles) {
    for (const message of file.messages) {
      // Messages without the option are parts of payloads (e.g. an order's line item).
      if (hasOption(message, eventOption)) topics.add(eventContract(message).topic);
    }
  }
  return [...topics].sort();
}

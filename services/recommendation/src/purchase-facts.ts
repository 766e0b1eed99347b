/**
 * What the Recommendation service learns from each event it consumes, or nothing:
 *
 *   ORDER_PLACED          a customer bought these products together
 *   ORDER_STATUS_UPDATED  to CANCELLED: that order no longer counts (other moves: nothing)
 *   PRODUCT_CREATED       a product can be recommended, in its category
 *   PRODUCT_DELETED       it never can again
 *   USER_DELETED          the email's history ends: a later account under it starts afresh
 *   anything else         nothing
 *
 * Emails are compared lower-cased, as the Order service records them. An event that cannot be
 * read (its payload does not parse, an id or email is missing, its time is not a time) throws
 * `PermanentEventError`: retrying cannot help, so it goes to the dead-letter topic.
 */
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import {
  type EventRecord,
  eventContract,
  parseEventData,
  requiredText,
  unreadableEvent,
} from "@commerce/runtime/events";
import { UserDeletedSchema } from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import {
  ProductCreatedSchema,
  ProductDeletedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";

export type PurchaseFact =
  | {
      readonly kind: "placed";
      readonly customer: string;
      readonly orderId: string;
      /** Distinct, in ascending order. */
      readonly products: readonly string[];
      readonly at: Date;
    }
  | { readonly kind: "cancelled"; readonly customer: string; readonly orderId: string }
  | { readonly kind: "listed"; readonly productId: string; readonly categoryId: string }
  | { readonly kind: "delisted"; readonly productId: string }
  | { readonly kind: "forgotten"; readonly customer: string; readonly at: Date };

/** The topics the service consumes. */
export const purchaseTopics: readonly string[] = [
  ...new Set([
    eventContract(OrderPlacedSchema).topic,
    eventContract(ProductCreatedSchema).topic,
    eventContract(UserDeletedSchema).topic,
  ]),
];

type Reader = (record: EventRecord) => PurchaseFact | undefined;

const readers = new Map<string, Reader>();

function on<Desc extends DescMessage>(
  schema: Desc,
  read: (event: MessageShape<Desc>, record: EventRecord) => PurchaseFact | undefined,
): void {
  readers.set(eventContract(schema).type, (record) => read(parseEventData(schema, record), record));
}

on(OrderPlacedSchema, (event, record) => {
  const products = [
    ...new Set(event.items.map((item) => requiredText(record, "items.productId", item.productId))),
  ];
  if (products.length === 0) throw unreadableEvent(record, "has no items");
  return {
    kind: "placed",
    customer: email(record, event.customerId),
    orderId: requiredText(record, "orderId", event.orderId),
    products: products.sort(),
    at: timeOf(record),
  };
});

on(OrderStatusUpdatedSchema, (event, record) =>
  event.status === "CANCELLED"
    ? {
        kind: "cancelled",
        customer: email(record, event.customerId),
        orderId: requiredText(record, "orderId", event.orderId),
      }
    : undefined,
);

on(ProductCreatedSchema, (event, record) => ({
  kind: "listed",
  productId: requiredText(record, "productId", event.productId),
  categoryId: requiredText(record, "categoryId", event.categoryId),
}));

on(ProductDeletedSchema, (event, record) => ({
  kind: "delisted",
  productId: requiredText(record, "productId", event.productId),
}));

on(UserDeletedSchema, (event, record) => ({
  kind: "forgotten",
  customer: email(record, event.email),
  at: timeOf(record),
}));

/** What `record` tells the service, or undefined when it tells it nothing. */
export function purchaseFactOf(record: EventRecord): PurchaseFact | undefined {
  return readers.get(record.type)?.(record);
}

/** The event's CloudEvents time, to the second (what the store's DateTime holds). */
function timeOf(record: EventRecord): Date {
  const at = new Date(record.time);
  if (Number.isNaN(at.getTime())) throw unreadableEvent(record, `has no readable time: "${record.time}"`);
  at.setUTCMilliseconds(0);
  return at;
}

function email(record: EventRecord, value: string): string {
  return requiredText(record, "email", value).toLowerCase();
}

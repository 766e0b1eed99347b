/**
 * What the Recommendation service learns from each event it consumes, or nothing:
 *
 *   ORDER_PLACED          a customer bought these products together
 *   ORDER_STATUS_UPDATED  to CANCELLED: that order no longer counts (other moves: nothing)
 *   PRODUCT_CREATED       a product can be recommended, in its category
 *   PRODUCT_DELETED       it never can again
 *   USER_DELETED          the account's purchases are forgotten
 *   anything else         nothing
 *
 * A customer is an account, keyed by its user id (`customerKey`, ADR 0100): an email passes to
 * a later account once its holder is deleted, a user id never. An order event published before
 * events carried the owner's id names no account (key ""): its order counts for what is bought
 * together, and is nobody's purchase. Its email (lower-cased) is kept only to find the rows of
 * an order placed before, which were keyed by email. An event that cannot be read (its payload
 * does not parse, an id or email is missing, its time is not a time) throws
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
      /** The owner's `customerKey`; "" when the event names no account. */
      readonly customer: string;
      /** The owner's email, lower-cased. */
      readonly email: string;
      readonly orderId: string;
      /** Distinct, in ascending order. */
      readonly products: readonly string[];
      readonly at: Date;
    }
  | {
      readonly kind: "cancelled";
      readonly customer: string;
      readonly email: string;
      readonly orderId: string;
    }
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
    customer: customerKey(event.customerUserId),
    email: email(record, event.customerId),
    orderId: requiredText(record, "orderId", event.orderId),
    products: products.sort(),
    at: timeOf(record),
  };
});

on(OrderStatusUpdatedSchema, (event, record) =>
  event.status === "CANCELLED"
    ? {
        kind: "cancelled",
        customer: customerKey(event.customerUserId),
        email: email(record, event.customerId),
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

on(UserDeletedSchema, (event, record) => {
  if (event.userId === 0) throw unreadableEvent(record, "names no account");
  return { kind: "forgotten", customer: customerKey(event.userId), at: timeOf(record) };
});

/** How the tables key a customer: the account's user id in decimal, "" for none (0). */
export function customerKey(userId: number): string {
  return userId === 0 ? "" : String(userId);
}

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

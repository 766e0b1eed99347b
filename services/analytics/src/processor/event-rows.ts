/**
 * The row each event becomes in its family's event table (analytics-rollups.ts), or none: the
 * processor consumes four topics, and only the types a figure reads give rows (USER_LOGIN,
 * USER_ROLE_CHANGED, PAYMENT_CREATED, PAYMENT_FAILED and the product events give none today;
 * a figure that needs one adds a table by migration, and a rebuild fills it from the log).
 *
 * An event that cannot be placed (its payload does not parse, an id is missing, its time is
 * not a UTC timestamp the store can hold, an order status the state machine does not have)
 * throws `PermanentEventError`: retrying cannot help, so it goes to the dead-letter topic.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { AnalyticsRow } from "@commerce/runtime/analytics";
import {
  type EventRecord,
  eventContract,
  parseEventData,
  requiredText,
  unreadableEvent,
} from "@commerce/runtime/events";
import {
  UserDeletedSchema,
  UserRegisteredSchema,
} from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import { PaymentSucceededSchema } from "@commerce/runtime/gen/commerce/events/v1/payment_events_pb.js";
import type { EventFamily } from "../analytics-rollups.js";
import { isOrderStatus } from "../order-statuses.js";

export interface TableRow {
  readonly family: EventFamily;
  readonly row: AnalyticsRow;
  /** The row's `occurred_at`: the second whose rollup it changes. */
  readonly occurredAt: Date;
}

type RowMapper = (record: EventRecord) => TableRow;

const typeOf = (schema: DescMessage): string => eventContract(schema).type;

const mappers: ReadonlyMap<string, RowMapper> = new Map<string, RowMapper>([
  [
    typeOf(UserRegisteredSchema),
    (record) => {
      const event = parseEventData(UserRegisteredSchema, record);
      return userRow(record, event.userId, ["registeredAt", event.registeredAt]);
    },
  ],
  [
    typeOf(UserDeletedSchema),
    (record) => {
      const event = parseEventData(UserDeletedSchema, record);
      return userRow(record, event.userId, ["deletedAt", event.deletedAt]);
    },
  ],
  [
    typeOf(OrderPlacedSchema),
    (record) => {
      const event = parseEventData(OrderPlacedSchema, record);
      return orderRow(record, event.orderId, ["", "CREATED"], event.totalAmountMinor, [
        "orderDate",
        event.orderDate,
      ]);
    },
  ],
  [
    typeOf(OrderStatusUpdatedSchema),
    (record) => {
      const event = parseEventData(OrderStatusUpdatedSchema, record);
      return orderRow(record, event.orderId, [event.previousStatus, event.status], event.totalAmountMinor, [
        "updatedAt",
        event.updatedAt,
      ]);
    },
  ],
  [
    typeOf(PaymentSucceededSchema),
    (record) => {
      const event = parseEventData(PaymentSucceededSchema, record);
      const at = timestamp(record, "paidAt", event.paidAt);
      return {
        family: "payments",
        occurredAt: at,
        row: {
          event_id: record.id,
          event_type: record.type,
          payment_id: requiredText(record, "paymentId", event.paymentId),
          order_id: requiredText(record, "orderId", event.orderId),
          amount_minor: amount(record, "amountMinor", event.amountMinor),
          occurred_at: at,
        },
      };
    },
  ],
]);

/** The row of `record`, or undefined for a type no figure reads. */
export function analyticsRowOf(record: EventRecord): TableRow | undefined {
  return mappers.get(record.type)?.(record);
}

/** A payload's time field: its name (for the dead-letter reason) and its text. */
type TimeField = readonly [name: string, text: string];

function userRow(record: EventRecord, userId: number, time: TimeField): TableRow {
  if (userId <= 0) throw unreadableEvent(record, "has no user id");
  const at = timestamp(record, ...time);
  return {
    family: "users",
    occurredAt: at,
    row: {
      event_id: record.id,
      event_type: record.type,
      user_id: userId,
      occurred_at: at,
    },
  };
}

/** An order's move: the status it left ("" for a placement) and the one it entered. */
type OrderMove = readonly [previous: string, status: string];

function orderRow(
  record: EventRecord,
  orderId: string,
  [previous, status]: OrderMove,
  totalMinor: bigint,
  time: TimeField,
): TableRow {
  if (!isOrderStatus(status)) throw unreadableEvent(record, `has an unknown order status "${status}"`);
  if (record.type !== typeOf(OrderPlacedSchema) && !isOrderStatus(previous)) {
    throw unreadableEvent(record, `has an unknown previous order status "${previous}"`);
  }
  const at = timestamp(record, ...time);
  return {
    family: "orders",
    occurredAt: at,
    row: {
      event_id: record.id,
      event_type: record.type,
      order_id: requiredText(record, "orderId", orderId),
      status,
      previous_status: previous,
      total_amount_minor: amount(record, "totalAmountMinor", totalMinor),
      occurred_at: at,
    },
  };
}

/** The event's UTC wall-clock time (`YYYY-MM-DDTHH:MM:SS`), within what DateTime holds. */
function timestamp(record: EventRecord, field: string, text: string): Date {
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(text) ? new Date(`${text}Z`) : undefined;
  // A valid calendar time prints back as it was written (2024-02-30 would not).
  if (at === undefined || Number.isNaN(at.getTime()) || at.toISOString().slice(0, 19) !== text) {
    throw unreadableEvent(record, `has no readable ${field}: "${text}"`);
  }
  if (at.getUTCFullYear() < 1971 || at.getUTCFullYear() > 2105) {
    throw unreadableEvent(record, `has ${field} outside the years 1971 to 2105: "${text}"`);
  }
  return at;
}

function amount(record: EventRecord, field: string, minor: bigint): bigint {
  if (minor < 0n) throw unreadableEvent(record, `has a negative ${field}: ${minor}`);
  return minor;
}

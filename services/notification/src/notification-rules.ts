/**
 * Who is told what about each event (ADR 0052):
 *
 *   USER_REGISTERED        the new user: a welcome
 *   USER_LOGIN             the user: a new sign-in
 *   ORDER_PLACED           the customer
 *   ORDER_STATUS_UPDATED   the customer
 *   PAYMENT_CREATED        the customer (payments carry the order owner's id and email)
 *   PAYMENT_SUCCESS        the customer
 *   PAYMENT_FAILED         the customer
 *   PRODUCT_CREATED        every admin
 *   PRODUCT_STOCK_UPDATED  every admin, only when the stock reached 0 (out of stock)
 *   USER_ROLE_CHANGED      nobody (the roster of admins follows it)
 *   USER_DELETED           nobody (the account leaves the roster of admins)
 *   anything else          nobody
 *
 * A notice is the account's the event names by user id (ADR 0100); its email is shown. An order
 * or payment event published before events carried the owner's id names none (0): its notice is
 * stored for nobody, and only admins see it (ADR 0103). Events without a recipient (an empty
 * email, no admin known yet) produce no notice; that is not an error, so the partition moves on. The rules also keep the two projections the texts
 * and recipients need: admins (from USER_REGISTERED, USER_ROLE_CHANGED and USER_DELETED) and
 * product names (from PRODUCT_CREATED).
 */
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { type EventRecord, eventContract, parseEventData } from "@commerce/runtime/events";
import { formatDate, formatTimestamp } from "@commerce/runtime/time";
import { fromMinorUnits, minorUnitsFromWire } from "@commerce/runtime/money";
import {
  UserDeletedSchema,
  UserLoginSchema,
  UserRegisteredSchema,
  UserRoleChangedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import {
  PaymentCreatedSchema,
  PaymentFailedSchema,
  PaymentSucceededSchema,
} from "@commerce/runtime/gen/commerce/events/v1/payment_events_pb.js";
import {
  ProductCreatedSchema,
  ProductStockUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";
import type { AdminRoster } from "./admin-roster.js";
import type { ProductNames } from "./product-names.js";

/** One recipient's notice about an event. */
export interface Notice {
  /** Lower-cased email, shown. */
  readonly recipient: string;
  /** The recipient account's user id; 0: nobody's. */
  readonly userId: number;
  readonly message: string;
}

/** The events about one order, whose notices name it in their text ("order ord_…"). */
export const orderNoticeTypes: ReadonlySet<string> = new Set(
  [
    OrderPlacedSchema,
    OrderStatusUpdatedSchema,
    PaymentCreatedSchema,
    PaymentSucceededSchema,
    PaymentFailedSchema,
  ].map((schema) => eventContract(schema).type),
);

/** The order an order or payment notice names in its text, if any. */
export function orderNamedBy(message: string): string | undefined {
  return /\border (ord_[A-Za-z0-9_-]+)/.exec(message)?.[1];
}

export interface NotificationRulesDeps {
  readonly admins: AdminRoster;
  readonly productNames: ProductNames;
  /** ISO 4217 code of the platform's amounts (PAYMENT_CURRENCY). */
  readonly currency: string;
}

/** What an event tells whom; `at` is the event's time. Throws only for an unreadable event. */
export type NotificationRules = (record: EventRecord, at: Date, signal: AbortSignal) => Promise<Notice[]>;

/** The topics whose events can notify someone. */
export const notificationTopics: readonly string[] = [
  eventContract(UserRegisteredSchema).topic,
  eventContract(OrderPlacedSchema).topic,
  eventContract(PaymentSucceededSchema).topic,
  eventContract(ProductCreatedSchema).topic,
];

interface RuleContext {
  readonly at: Date;
  readonly signal: AbortSignal;
}

type Rule = (record: EventRecord, context: RuleContext) => Promise<Notice[]> | Notice[];

export function createNotificationRules(deps: NotificationRulesDeps): NotificationRules {
  const { admins, productNames } = deps;
  const money = moneyFormat(deps.currency);
  const rules = new Map<string, Rule>();

  /** Registers the rule of `schema`'s event type; the rule sees the parsed payload. */
  function on<Desc extends DescMessage>(
    schema: Desc,
    rule: (event: MessageShape<Desc>, context: RuleContext) => Promise<Notice[]> | Notice[],
  ): void {
    rules.set(eventContract(schema).type, (record, context) => rule(parseEventData(schema, record), context));
  }

  async function toAdmins(message: string, signal: AbortSignal): Promise<Notice[]> {
    return (await admins.admins(signal)).map(({ userId, email }) => ({ recipient: email, userId, message }));
  }

  on(UserRegisteredSchema, async (event, { signal }) => {
    const email = normalizeEmail(event.email);
    if (event.role === "ADMIN" && email !== "") await admins.promote(event.userId, email, signal);
    const name = event.fullName.trim();
    return to(
      email,
      event.userId,
      `Welcome${name === "" ? "" : `, ${name}`}! Your account has been created.`,
    );
  });

  on(UserRoleChangedSchema, async (event, { signal }) => {
    const email = normalizeEmail(event.email);
    if (event.role === "ADMIN") await admins.promote(event.userId, email, signal);
    else await admins.demote(event.userId, email, signal);
    return [];
  });

  on(UserDeletedSchema, async (event, { signal }) => {
    await admins.remove(event.userId, normalizeEmail(event.email), signal);
    return [];
  });

  on(UserLoginSchema, (event, { at }) =>
    to(
      event.email,
      event.userId,
      `New sign-in to your account on ${formatDate(at)} at ${formatTimestamp(at).slice(11)} UTC.`,
    ),
  );

  on(OrderPlacedSchema, (event) =>
    to(
      event.customerId,
      event.customerUserId,
      `Your order ${event.orderId} for ${money(event.totalAmountMinor)} has been placed.`,
    ),
  );

  on(OrderStatusUpdatedSchema, (event) => {
    const change =
      event.status === "CONFIRMED" || event.status === "CANCELLED"
        ? `has been ${event.status.toLowerCase()}`
        : `is now ${event.status}`;
    return to(event.customerId, event.customerUserId, `Your order ${event.orderId} ${change}.`);
  });

  on(PaymentCreatedSchema, (event) =>
    to(
      event.customerId,
      event.customerUserId,
      `Payment of ${moneyFormat(event.currency, money)(event.amountMinor)} for order ${event.orderId} has been initiated.`,
    ),
  );

  on(PaymentSucceededSchema, (event) =>
    to(
      event.customerId,
      event.customerUserId,
      `Payment of ${money(event.amountMinor)} for order ${event.orderId} was successful.`,
    ),
  );

  // The failure reason stays out of the text: it comes from the gateway and is not written
  // for customers.
  on(PaymentFailedSchema, (event) =>
    to(
      event.customerId,
      event.customerUserId,
      `Payment of ${money(event.amountMinor)} for order ${event.orderId} failed.`,
    ),
  );

  on(ProductCreatedSchema, async (event, { signal }) => {
    await productNames.remember(event.productId, event.name, signal);
    const sku = event.sku === "" ? "" : ` (SKU ${event.sku})`;
    return toAdmins(
      `New product "${event.name}"${sku} was added at ${money(event.priceMinor)} with ${event.stock} in stock.`,
      signal,
    );
  });

  on(ProductStockUpdatedSchema, async (event, { signal }) => {
    if (event.stock !== 0) return [];
    const name = await productNames.nameOf(event.productId, signal);
    const product = name === undefined ? event.productId : `"${name}" (${event.productId})`;
    return toAdmins(`Product ${product} is out of stock.`, signal);
  });

  return async (record, at, signal) => {
    const rule = rules.get(record.type);
    return rule === undefined ? [] : rule(record, { at, signal });
  };
}

/** Events carry lower-cased emails; normalised once more here, where identities are compared. */
function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** One notice for account `userId` (shown as `email`), or none when the event names nobody. */
function to(email: string, userId: number, message: string): Notice[] {
  const recipient = normalizeEmail(email);
  return recipient === "" ? [] : [{ recipient, userId, message }];
}

/** Formats an amount given in minor units (as events carry it). */
type MoneyFormat = (minor: bigint) => string;

/**
 * Amounts as a reader expects them: currency symbol, grouping, two decimals (₹59.97,
 * ₹1,23,456.50 for INR), from the minor units events carry (5997 → ₹59.97). A missing or
 * malformed currency falls back to `fallback`.
 */
function moneyFormat(currency: string, fallback?: MoneyFormat): MoneyFormat {
  if (!/^[A-Z]{3}$/.test(currency)) {
    if (fallback === undefined) throw new RangeError(`not an ISO 4217 currency code: ${currency}`);
    return fallback;
  }
  const format = new Intl.NumberFormat("en-IN", { style: "currency", currency });
  return (minor) => format.format(fromMinorUnits(minorUnitsFromWire(minor)));
}

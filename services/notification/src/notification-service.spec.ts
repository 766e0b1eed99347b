import { Code } from "@connectrpc/connect";
import { expect } from "chai";
import { type EventRecord, createEventFactory } from "@commerce/runtime/events";
import type { Caller } from "@commerce/runtime/identity";
import { eventually, codeOf, startServiceHarness, type ServiceHarness } from "@commerce/runtime/testing";
import {
  UserLoginSchema,
  UserDeletedSchema,
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
  ProductDeletedSchema,
  ProductStockUpdatedSchema,
  ProductUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";
import {
  NotificationService,
  type Notification,
  type OwnedNotification,
} from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { buildNotificationService } from "./notification-module.js";
import { openNotificationCollections } from "./notification-store.js";

const alice = { userId: 11, email: "alice@x.test", role: "CUSTOMER" as const };
const bob = { userId: 12, email: "bob@x.test", role: "CUSTOMER" as const };
const root = { userId: 13, email: "root@x.test", role: "ADMIN" as const };
const ops = { userId: 14, email: "ops@x.test", role: "ADMIN" as const };
/** A later account that registered alice's email after hers was deleted. */
const aliceAgain = { userId: 21, email: alice.email, role: "CUSTOMER" as const };

/** The user id of the account the tests' events name by `email` (0: none known, as an event from before ids). */
function userIdOf(email: string): number {
  return [alice, bob, root, ops].find((caller) => caller.email === email.trim().toLowerCase())?.userId ?? 0;
}

const auth = createEventFactory("/commerce/auth");
const orders = createEventFactory("/commerce/order");
const payments = createEventFactory("/commerce/payment");
const products = createEventFactory("/commerce/product");

/** `record` as if it had happened at `time` (RFC 3339 UTC). */
function at(record: EventRecord, time: string): EventRecord {
  return { ...record, time };
}

function registered(userId: number, email: string, role: "CUSTOMER" | "ADMIN", fullName = "Asha Verma") {
  return auth.event(
    UserRegisteredSchema,
    { userId, email, fullName, role, phoneNo: "+919876543210", registeredAt: "2026-02-03T04:05:06" },
    String(userId),
  );
}

function roleChanged(userId: number, email: string, role: "CUSTOMER" | "ADMIN") {
  return auth.event(
    UserRoleChangedSchema,
    { userId, email, role, changedAt: "2026-02-03T04:05:07" },
    String(userId),
  );
}

function deleted(userId: number, email: string) {
  return auth.event(UserDeletedSchema, { userId, email, deletedAt: "2026-02-03T04:05:08" }, String(userId));
}

/** `totalAmountMinor` in paise, as events carry money. */
function orderPlaced(
  orderId: string,
  customerId: string,
  totalAmountMinor: bigint,
  customerUserId = userIdOf(customerId),
): EventRecord {
  return orders.event(
    OrderPlacedSchema,
    {
      orderId,
      customerId,
      customerUserId,
      totalAmountMinor,
      items: [{ productId: "p-pen", quantity: 3, priceMinor: totalAmountMinor / 3n }],
      orderDate: "2026-02-03T04:05:06",
    },
    orderId,
  );
}

function productCreated(productId: string, name: string): EventRecord {
  return products.event(
    ProductCreatedSchema,
    {
      productId,
      name,
      priceMinor: 24999n,
      stock: 10,
      brand: "Acme",
      categoryId: "electronics",
      sku: "ELEC-7K3M9Q2X",
    },
    productId,
  );
}

function stockUpdated(productId: string, stock: number, delta: number): EventRecord {
  return products.event(
    ProductStockUpdatedSchema,
    { productId, stock, delta, reason: "ORDER_RESERVED", orderId: "ord_1" },
    productId,
  );
}

describe("Notification service", () => {
  let harness: ServiceHarness;

  beforeEach(async () => {
    harness = await startServiceHarness((ctx) => buildNotificationService(ctx, { currency: "INR" }));
  });
  afterEach(() => harness.close());

  const client = (caller?: Caller) => harness.client(NotificationService, caller);

  /** The caller's notifications once there are at least `count` (newest first). */
  function notificationsOf(caller: Caller, count: number, query: { unread?: boolean } = {}) {
    return eventually(
      async () => {
        const { notifications } = await client(caller).listMyNotifications({ size: 100, ...query });
        return notifications.length >= count ? notifications : undefined;
      },
      5_000,
      `${count} notifications of ${caller.email}`,
    );
  }

  /** Everyone's notifications once there are at least `count`. */
  function allNotifications(count: number): Promise<OwnedNotification[]> {
    return eventually(
      async () => {
        const { notifications } = await client(root).listAllNotifications({ size: 100 });
        return notifications.length >= count ? notifications : undefined;
      },
      5_000,
      `${count} notifications in all`,
    );
  }

  /**
   * Publishes `records`, then on each of their topics a marker (an ORDER_PLACED record for a
   * fresh customer, put on that topic: the consumer dispatches on the event type), and resolves
   * once every marker's notification is there. The bus delivers a topic's records in order, so
   * everything published before has been consumed by then: absences can be asserted without
   * sleeping.
   */
  let sentinels = 0;
  async function publishAndSettle(...records: EventRecord[]): Promise<void> {
    await harness.bus.publish(records);
    const markers: EventRecord[] = [];
    for (const topic of new Set(records.map((r) => r.topic))) {
      sentinels += 1;
      const marker = orderPlaced(
        `ord_sentinel_${sentinels}`,
        `sentinel${sentinels}@x.test`,
        100n,
        1_000 + sentinels,
      );
      markers.push(topic === marker.topic ? marker : { ...marker, topic });
    }
    await harness.bus.publish(markers);
    for (const marker of markers) {
      const { customerId: email, customerUserId: userId } = JSON.parse(marker.data) as {
        customerId: string;
        customerUserId: number;
      };
      await notificationsOf({ userId, email, role: "CUSTOMER" }, 1);
    }
  }

  describe("from events", () => {
    it("welcomes a new user with USER_REGISTERED, at the event's time, unread", async () => {
      const event = at(registered(alice.userId, alice.email, "CUSTOMER"), "2026-02-03T04:05:06.789Z");
      await harness.bus.publish([event]);
      const [welcome] = await notificationsOf(alice, 1);
      expect(welcome).to.deep.include({
        eventType: "USER_REGISTERED",
        message: "Welcome, Asha Verma! Your account has been created.",
        timestamp: "2026-02-03T04:05:06",
        read: false,
      });
      expect(welcome?.id).to.match(/^ntf_[A-Za-z0-9_-]{22}$/);
    });

    it("tells the user about a sign-in with USER_LOGIN", async () => {
      const event = at(
        auth.event(
          UserLoginSchema,
          { userId: alice.userId, email: alice.email, loggedInAt: "2026-02-03T10:20:30" },
          String(alice.userId),
        ),
        "2026-02-03T10:20:30.000Z",
      );
      await harness.bus.publish([event]);
      const [login] = await notificationsOf(alice, 1);
      expect(login).to.deep.include({
        eventType: "USER_LOGIN",
        message: "New sign-in to your account on 2026-02-03 at 10:20:30 UTC.",
        timestamp: "2026-02-03T10:20:30",
        read: false,
      });
    });

    it("tells the customer about ORDER_PLACED and each ORDER_STATUS_UPDATED", async () => {
      const statusUpdated = (previousStatus: string, status: string, time: string) =>
        at(
          orders.event(
            OrderStatusUpdatedSchema,
            {
              orderId: "ord_A1",
              customerId: alice.email,
              customerUserId: alice.userId,
              previousStatus,
              status,
              totalAmountMinor: 5997n,
              updatedAt: "",
            },
            "ord_A1",
          ),
          time,
        );
      await harness.bus.publish([
        at(orderPlaced("ord_A1", alice.email, 5997n), "2026-02-03T04:00:00.000Z"),
        statusUpdated("CREATED", "CONFIRMED", "2026-02-03T05:00:00.000Z"),
        statusUpdated("CONFIRMED", "CANCELLED", "2026-02-03T06:00:00.000Z"),
      ]);
      const list = await notificationsOf(alice, 3);
      expect(list.map((n) => [n.eventType, n.message, n.timestamp])).to.deep.equal([
        ["ORDER_STATUS_UPDATED", "Your order ord_A1 has been cancelled.", "2026-02-03T06:00:00"],
        ["ORDER_STATUS_UPDATED", "Your order ord_A1 has been confirmed.", "2026-02-03T05:00:00"],
        ["ORDER_PLACED", "Your order ord_A1 for ₹59.97 has been placed.", "2026-02-03T04:00:00"],
      ]);
    });

    it("tells the customer about PAYMENT_CREATED, PAYMENT_SUCCESS and PAYMENT_FAILED", async () => {
      const common = {
        orderId: "ord_P1",
        customerId: alice.email,
        customerUserId: alice.userId,
        amountMinor: 12345650n,
        paymentId: "pay_1",
      };
      await harness.bus.publish([
        at(
          payments.event(
            PaymentCreatedSchema,
            { ...common, currency: "INR", providerOrderId: "order_X" },
            "pay_1",
          ),
          "2026-02-03T04:00:00.000Z",
        ),
        at(
          payments.event(
            PaymentFailedSchema,
            { ...common, providerPaymentId: "pay_X", reason: "signature mismatch" },
            "pay_1",
          ),
          "2026-02-03T04:01:00.000Z",
        ),
        at(
          payments.event(
            PaymentSucceededSchema,
            { ...common, providerPaymentId: "pay_Y", paidAt: "2026-02-03T04:02:00" },
            "pay_1",
          ),
          "2026-02-03T04:02:00.000Z",
        ),
      ]);
      const list = await notificationsOf(alice, 3);
      expect(list.map((n) => [n.eventType, n.message])).to.deep.equal([
        ["PAYMENT_SUCCESS", "Payment of ₹1,23,456.50 for order ord_P1 was successful."],
        ["PAYMENT_FAILED", "Payment of ₹1,23,456.50 for order ord_P1 failed."],
        ["PAYMENT_CREATED", "Payment of ₹1,23,456.50 for order ord_P1 has been initiated."],
      ]);
    });

    it("tells every admin, and nobody else, about PRODUCT_CREATED", async () => {
      await publishAndSettle(
        registered(root.userId, root.email, "ADMIN", "Administrator"),
        registered(ops.userId, ops.email, "ADMIN", "Ops"),
        registered(alice.userId, alice.email, "CUSTOMER"),
      );
      await publishAndSettle(productCreated("prd_1", "Blue Pen"));
      const text = 'New product "Blue Pen" (SKU ELEC-7K3M9Q2X) was added at ₹249.99 with 10 in stock.';
      for (const admin of [root, ops]) {
        const list = await notificationsOf(admin, 2);
        expect(list.map((n) => n.eventType).sort()).to.deep.equal(["PRODUCT_CREATED", "USER_REGISTERED"]);
        const created = list.find((n) => n.eventType === "PRODUCT_CREATED");
        expect(created).to.deep.include({ message: text, read: false });
      }
      expect((await notificationsOf(alice, 1)).map((n) => n.eventType)).to.deep.equal(["USER_REGISTERED"]);
    });

    it("keeps its admins by USER_ROLE_CHANGED and USER_DELETED: a deleted admin is told nothing more", async () => {
      const productNotices = async (who: Caller) =>
        (await client(who).listMyNotifications({ size: 100 })).notifications
          .filter((n) => n.eventType === "PRODUCT_CREATED")
          .map((n) => n.message.split('"')[1])
          .sort();
      /** As stored: a deleted account's token is refused, so it cannot list them itself. */
      const storedProductNotices = async (userId: number) => {
        const { notifications } = await openNotificationCollections(harness.context.store);
        return (await notifications.find({ userId, eventType: "PRODUCT_CREATED" })).map(
          (n) => n.message.split('"')[1],
        );
      };
      await publishAndSettle(
        registered(root.userId, root.email, "ADMIN", "Administrator"),
        registered(ops.userId, ops.email, "CUSTOMER", "Ops"),
        registered(alice.userId, alice.email, "CUSTOMER"),
      );
      await publishAndSettle(roleChanged(ops.userId, ops.email, "ADMIN"), deleted(root.userId, root.email));
      await publishAndSettle(productCreated("prd_1", "Blue Pen"));
      await notificationsOf(ops, 2);
      expect(await productNotices(ops)).to.deep.equal(["Blue Pen"]);
      expect(await storedProductNotices(root.userId)).to.deep.equal([]);
      expect(await productNotices(alice)).to.deep.equal([]);

      // The email registered again as a new admin account; the old account's events, however
      // late or repeated, change nothing for it. Ops is demoted.
      const rootAgain = { userId: 40, email: root.email, role: "ADMIN" as const };
      await publishAndSettle(
        registered(rootAgain.userId, root.email, "ADMIN", "Administrator"),
        roleChanged(ops.userId, ops.email, "CUSTOMER"),
      );
      await publishAndSettle(deleted(root.userId, root.email), roleChanged(root.userId, root.email, "ADMIN"));
      await publishAndSettle(productCreated("prd_2", "Red Pen"));
      await eventually(
        async () => ((await productNotices(rootAgain)).length > 0 ? true : undefined),
        5_000,
        "the new admin's notice",
      );
      expect(await productNotices(rootAgain)).to.deep.equal(["Red Pen"]);
      expect(await storedProductNotices(root.userId)).to.deep.equal([]);
      expect(await productNotices(ops)).to.deep.equal(["Blue Pen"]);
    });

    it("tells every admin when a product runs out of stock, naming it, and about no other product event", async () => {
      await publishAndSettle(
        at(registered(root.userId, root.email, "ADMIN", "Administrator"), "2026-02-03T03:00:00.000Z"),
      );
      const productEvents = [
        productCreated("prd_1", "Blue Pen"),
        stockUpdated("prd_1", 3, -7),
        products.event(
          ProductUpdatedSchema,
          { productId: "prd_1", name: "Blue Pen", priceMinor: 100n, stock: 3 },
          "prd_1",
        ),
        stockUpdated("prd_1", 0, -3),
        stockUpdated("prd_unknown", 0, -1),
        products.event(ProductDeletedSchema, { productId: "prd_1", name: "Blue Pen" }, "prd_1"),
      ];
      await publishAndSettle(...productEvents.map((r, i) => at(r, `2026-02-03T04:00:0${i}.000Z`)));
      const list = await client(root).listMyNotifications({ size: 100 });
      expect(list.notifications.map((n) => [n.eventType, n.message]).reverse()).to.deep.equal([
        ["USER_REGISTERED", "Welcome, Administrator! Your account has been created."],
        [
          "PRODUCT_CREATED",
          'New product "Blue Pen" (SKU ELEC-7K3M9Q2X) was added at ₹249.99 with 10 in stock.',
        ],
        ["PRODUCT_STOCK_UPDATED", 'Product "Blue Pen" (prd_1) is out of stock.'],
        ["PRODUCT_STOCK_UPDATED", "Product prd_unknown is out of stock."],
      ]);
    });

    it("stores one notification however often an event is delivered", async () => {
      const placed = orderPlaced("ord_R1", alice.email, 5997n);
      await publishAndSettle(placed, placed, placed);
      await publishAndSettle(placed); // redelivered later, after other records
      await publishAndSettle(registered(root.userId, root.email, "ADMIN"));
      const created = productCreated("prd_1", "Blue Pen");
      await publishAndSettle(created, created);
      expect((await client(alice).listMyNotifications({})).notifications.map((n) => n.message)).to.deep.equal(
        ["Your order ord_R1 for ₹59.97 has been placed."],
      );
      const all = await client(root).listAllNotifications({ size: 100 });
      expect(all.notifications.filter((n) => n.eventType === "PRODUCT_CREATED")).to.have.length(1);
      expect(
        all.notifications.filter((n) => n.eventType === "ORDER_PLACED" && n.userEmail === alice.email),
      ).to.have.length(1);
    });

    it("skips events whose recipient is unknown and keeps consuming", async () => {
      await publishAndSettle(
        orderPlaced("ord_U1", "", 1000n),
        payments.event(
          PaymentSucceededSchema,
          {
            paymentId: "pay_U",
            orderId: "ord_U1",
            customerId: "  ",
            amountMinor: 1000n,
            providerPaymentId: "x",
            paidAt: "",
          },
          "pay_U",
        ),
        productCreated("prd_1", "Nobody Told"), // no admin known yet
        stockUpdated("prd_1", 0, -10),
      );
      await publishAndSettle(orderPlaced("ord_U2", alice.email, 1000n));
      const all = await client(root).listAllNotifications({ size: 100 });
      const told = all.notifications.filter((n) => !n.userEmail.startsWith("sentinel"));
      expect(told.map((n) => [n.userEmail, n.message])).to.deep.equal([
        [alice.email, "Your order ord_U2 for ₹10.00 has been placed."],
      ]);
    });

    it("shows the recipient's email lower-cased", async () => {
      await harness.bus.publish([orderPlaced("ord_C1", "Alice@X.Test", 1000n)]);
      expect((await notificationsOf(alice, 1))[0]?.eventType).to.equal("ORDER_PLACED");
      expect((await allNotifications(1)).map((n) => n.userEmail)).to.deep.equal([alice.email]);
    });

    it("tells the account the event names by id: a later account of the same email sees and marks none of it", async () => {
      await publishAndSettle(orderPlaced("ord_O1", alice.email, 1000n));
      const [notice] = await notificationsOf(alice, 1);
      expect((await client(aliceAgain).listMyNotifications({})).notifications).to.deep.equal([]);
      expect((await client(aliceAgain).listMyNotifications({ unread: true })).notifications).to.deep.equal(
        [],
      );
      expect(await codeOf(client(aliceAgain).markRead({ notificationId: notice?.id ?? "" }))).to.equal(
        Code.PermissionDenied,
      );
      expect((await client(alice).listMyNotifications({ unread: true })).notifications).to.have.length(1);
    });

    it("keeps for the admins only an order event published before events carried the owner's id", async () => {
      await publishAndSettle(orderPlaced("ord_old", alice.email, 1000n, 0));
      expect((await client(alice).listMyNotifications({})).notifications).to.deep.equal([]);
      expect((await client(aliceAgain).listMyNotifications({})).notifications).to.deep.equal([]);
      const all = (await client(root).listAllNotifications({ size: 100 })).notifications;
      expect(all.filter((n) => n.userEmail === alice.email).map((n) => n.message)).to.deep.equal([
        "Your order ord_old for ₹10.00 has been placed.",
      ]);
    });

    it("tells the latest account of an admin's email when the roster holds two (a deletion not arrived yet)", async () => {
      const rootAgain = { userId: 40, email: root.email, role: "ADMIN" as const };
      await publishAndSettle(
        registered(root.userId, root.email, "ADMIN", "Administrator"),
        registered(rootAgain.userId, root.email, "ADMIN", "Administrator"),
      );
      await publishAndSettle(productCreated("prd_9", "Green Pen"));
      await eventually(
        async () =>
          (await client(rootAgain).listMyNotifications({})).notifications.some(
            (n) => n.eventType === "PRODUCT_CREATED",
          )
            ? true
            : undefined,
        5_000,
        "the latest admin's notice",
      );
      const earlier = (await client(root).listMyNotifications({})).notifications;
      expect(earlier.map((n) => n.eventType)).to.deep.equal(["USER_REGISTERED"]);
    });
  });

  describe("listMyNotifications", () => {
    /** Five of Alice's orders placed a minute apart (ord_1 oldest), and one of Bob's. */
    async function fiveOrders(): Promise<Notification[]> {
      const records = [1, 2, 3, 4, 5].map((i) =>
        at(orderPlaced(`ord_${i}`, alice.email, BigInt(i * 100)), `2026-02-03T04:0${i}:00.000Z`),
      );
      await harness.bus.publish([...records, orderPlaced("ord_bob", bob.email, 100n)]);
      await notificationsOf(bob, 1);
      return notificationsOf(alice, 5);
    }

    it("lists only the caller's own notifications, newest first, with the contract's fields", async () => {
      const list = await fiveOrders();
      expect(list.map((n) => n.message)).to.deep.equal(
        [5, 4, 3, 2, 1].map((i) => `Your order ord_${i} for ₹${i}.00 has been placed.`),
      );
      expect(
        Object.keys(list[0] ?? {})
          .filter((k) => k !== "$typeName")
          .sort(),
      ).to.deep.equal(["eventType", "id", "message", "read", "timestamp"]);
      expect((await client(bob).listMyNotifications({})).notifications).to.have.length(1);
    });

    it("pages zero-based with a size, stable across pages", async () => {
      const all = (await fiveOrders()).map((n) => n.id);
      const page = async (p: number) =>
        (await client(alice).listMyNotifications({ page: p, size: 2 })).notifications.map((n) => n.id);
      expect([...(await page(0)), ...(await page(1)), ...(await page(2))]).to.deep.equal(all);
      expect(await page(3)).to.deep.equal([]);
    });

    it("orders events of the same second by their milliseconds, and equal times by id", async () => {
      const records = ["04:00:00.900Z", "04:00:00.100Z", "04:00:00.500Z", "04:00:00.500Z"].map((t, i) =>
        at(orderPlaced(`ord_${i}`, alice.email, 100n), `2026-02-03T${t}`),
      );
      await harness.bus.publish(records);
      const list = await notificationsOf(alice, 4);
      const orderOf = (n: Notification | undefined) => n?.message.split(" ")[2];
      expect(orderOf(list[0])).to.equal("ord_0");
      expect(orderOf(list[3])).to.equal("ord_1");
      expect(list[1]!.id > list[2]!.id).to.equal(true);
      expect(new Set(list.map((n) => n.timestamp))).to.deep.equal(new Set(["2026-02-03T04:00:00"]));
    });

    it("returns 20 by default and refuses sizes outside 1 to 100", async () => {
      const records = Array.from({ length: 21 }, (_, i) => orderPlaced(`ord_${i}`, alice.email, 100n));
      await harness.bus.publish(records);
      await notificationsOf(alice, 21);
      expect((await client(alice).listMyNotifications({})).notifications).to.have.length(20);
      expect((await client(alice).listMyNotifications({ page: 1 })).notifications).to.have.length(1);
      expect(await codeOf(client(alice).listMyNotifications({ size: 0 }))).to.equal(Code.InvalidArgument);
      expect(await codeOf(client(alice).listMyNotifications({ size: 101 }))).to.equal(Code.InvalidArgument);
    });

    it("filters to unread notifications with unread=true", async () => {
      const [newest, second] = await fiveOrders();
      await client(alice).markRead({ notificationId: newest!.id });
      await client(alice).markRead({ notificationId: second!.id });
      const unread = (await client(alice).listMyNotifications({ unread: true })).notifications;
      expect(unread.map((n) => n.message.split(" ")[2])).to.deep.equal(["ord_3", "ord_2", "ord_1"]);
      expect(unread.every((n) => !n.read)).to.equal(true);
      const everything = (await client(alice).listMyNotifications({ unread: false })).notifications;
      expect(everything.map((n) => n.read)).to.deep.equal([true, true, false, false, false]);
    });

    it("refuses anonymous callers with UNAUTHENTICATED", async () => {
      expect(await codeOf(client().listMyNotifications({}))).to.equal(Code.Unauthenticated);
    });
  });

  describe("markRead", () => {
    async function aliceNotificationId(): Promise<string> {
      await harness.bus.publish([orderPlaced("ord_M1", alice.email, 500n)]);
      const [notification] = await notificationsOf(alice, 1);
      return notification!.id;
    }

    it("marks the owner's notification read, and a second time changes nothing", async () => {
      const notificationId = await aliceNotificationId();
      expect((await client(alice).markRead({ notificationId })).message).to.equal(
        "notification marked as read",
      );
      expect((await client(alice).markRead({ notificationId })).message).to.equal(
        "notification marked as read",
      );
      const [notification] = (await client(alice).listMyNotifications({})).notifications;
      expect(notification).to.deep.include({ id: notificationId, read: true });
    });

    it("succeeds for every one of concurrent marks", async () => {
      const notificationId = await aliceNotificationId();
      await Promise.all(Array.from({ length: 10 }, () => client(alice).markRead({ notificationId })));
      expect((await client(alice).listMyNotifications({ unread: true })).notifications).to.deep.equal([]);
    });

    it("refuses another user's notification with PERMISSION_DENIED (admins too) and leaves it unread", async () => {
      const notificationId = await aliceNotificationId();
      expect(await codeOf(client(bob).markRead({ notificationId }))).to.equal(Code.PermissionDenied);
      expect(await codeOf(client(root).markRead({ notificationId }))).to.equal(Code.PermissionDenied);
      expect((await client(alice).listMyNotifications({ unread: true })).notifications).to.have.length(1);
    });

    it("answers NOT_FOUND for an unknown id", async () => {
      expect(await codeOf(client(alice).markRead({ notificationId: "ntf_unknown" }))).to.equal(Code.NotFound);
    });
  });

  describe("listAllNotifications", () => {
    it("lists everyone's notifications newest first with their owner, paged, for admins only", async () => {
      await harness.bus.publish([
        at(orderPlaced("ord_1", alice.email, 100n), "2026-02-03T04:01:00.000Z"),
        at(orderPlaced("ord_2", bob.email, 200n), "2026-02-03T04:02:00.000Z"),
        at(orderPlaced("ord_3", alice.email, 300n), "2026-02-03T04:03:00.000Z"),
      ]);
      const all = await allNotifications(3);
      expect(all.map((n) => [n.userEmail, n.eventType, n.message, n.read])).to.deep.equal([
        [alice.email, "ORDER_PLACED", "Your order ord_3 for ₹3.00 has been placed.", false],
        [bob.email, "ORDER_PLACED", "Your order ord_2 for ₹2.00 has been placed.", false],
        [alice.email, "ORDER_PLACED", "Your order ord_1 for ₹1.00 has been placed.", false],
      ]);
      expect(all[0]?.timestamp).to.equal("2026-02-03T04:03:00");
      const second = await client(root).listAllNotifications({ page: 1, size: 2 });
      expect(second.notifications.map((n) => n.id)).to.deep.equal([all[2]?.id]);
      expect(await codeOf(client(alice).listAllNotifications({}))).to.equal(Code.PermissionDenied);
      expect(await codeOf(client().listAllNotifications({}))).to.equal(Code.Unauthenticated);
    });
  });
});

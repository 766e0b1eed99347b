import { Code } from "@connectrpc/connect";
import { expect } from "chai";
import { setTimeout as delay } from "node:timers/promises";
import { buildAuthService } from "@commerce/auth";
import { buildOrderService, openOrderCollections, type OrderDocument } from "@commerce/order";
import { storedOrder } from "@commerce/order/testing";
import { migrationRecordsSpec, type Collection } from "@commerce/runtime/store";
import {
  codeOf,
  composeModules,
  eventually,
  registerAccount,
  startServiceHarness,
  testStoreBackends,
  type ServiceHarness,
  type TestStore,
} from "@commerce/runtime/testing";
import { formatTimestamp } from "@commerce/runtime/time";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { NotificationService } from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { buildNotificationService } from "./notification-module.js";
import {
  notificationId,
  openNotificationCollections,
  type NotificationDocument,
} from "./notification-store.js";

const key = new TextEncoder().encode("n".repeat(64));
const ttlSeconds = 120;
const email = "asha@x.test";
/** Past every former holder's tokens (JWT_TTL) and the clocks' tolerance (a minute), from now. */
const muchLater = (): number => Date.now() + ttlSeconds * 1_000 + 3 * 60_000;

/** A notification as the release before recipients by id stored it: for an email only. */
function legacyNotice(
  eventId: string,
  eventType: string,
  message: string,
  at: number,
  to = email,
): NotificationDocument {
  return {
    _id: notificationId(eventId, to),
    _v: 1,
    userEmail: to,
    eventType,
    message,
    timestamp: formatTimestamp(new Date(at)),
    occurredAt: new Date(at).toISOString(),
    eventId,
    read: false,
  };
}

for (const backend of testStoreBackends("services/notification/src/notification-owners.spec.ts")) {
  describe(`Notification service: recipients of the notifications stored before recipients by id (${backend.name})`, function () {
    this.timeout(30_000);
    let authStore: TestStore;
    let orderStore: TestStore;
    let notificationStore: TestStore;
    let harness: ServiceHarness | undefined;
    let notifications: Collection<NotificationDocument>;
    let orders: Collection<OrderDocument>;
    const ids = { first: 0, second: 0, admin: 0 };
    let whenFirst = 0;

    const auth = (ctx: Parameters<typeof buildAuthService>[0]) =>
      buildAuthService({ ...ctx, store: authStore.store }, { jwtKey: key, jwtTtlSeconds: ttlSeconds });

    beforeEach(async () => {
      authStore = await backend.open();
      orderStore = await backend.open();
      notificationStore = await backend.open();
      notifications = (await openNotificationCollections(notificationStore.store)).notifications;
      orders = (await openOrderCollections(orderStore.store)).orders;
      // The accounts: the first holder of the email, deleted, and the later one; an admin.
      const accounts = await startServiceHarness(auth);
      ids.first = await registerAccount(accounts, email);
      whenFirst = Date.now();
      await accounts.peerClient(AccountService).deleteAccount({ userId: ids.first });
      ids.second = await registerAccount(accounts, email);
      ids.admin = await registerAccount(accounts, "root@x.test");
      await accounts.close();
      // What the Order service's own migration decided: the first account's order is nobody's.
      await orders.insert(storedOrder("ord_first", email, { customerUserId: 0 }));
      await orders.insert(storedOrder("ord_second", email, { customerUserId: ids.second }));
      const later = muchLater();
      for (const notice of [
        legacyNotice("e1", "USER_REGISTERED", "Welcome, Asha! Your account has been created.", whenFirst),
        legacyNotice("e2", "ORDER_PLACED", "Your order ord_first for ₹19.99 has been placed.", whenFirst),
        // After the email passed to the later account, the first one's order still moves: its.
        legacyNotice("e3", "ORDER_STATUS_UPDATED", "Your order ord_first has been confirmed.", later),
        legacyNotice("e4", "ORDER_PLACED", "Your order ord_second for ₹19.99 has been placed.", later),
        legacyNotice("e5", "USER_LOGIN", "New sign-in to your account on … UTC.", later),
        legacyNotice("e6", "PRODUCT_CREATED", 'New product "Pen" was added.', later, "root@x.test"),
      ]) {
        await notifications.insert(notice);
      }
      harness = await startServiceHarness(async (ctx) =>
        composeModules(
          await auth(ctx),
          await buildOrderService({ ...ctx, store: orderStore.store }),
          await buildNotificationService(
            { ...ctx, store: notificationStore.store },
            { currency: "INR", ownerBackfillIntervalMs: 100 },
          ),
        ),
      );
    });
    afterEach(async () => {
      await harness?.close();
      await authStore.close();
      await orderStore.close();
      await notificationStore.close();
    });

    const recipientOf = async (eventId: string, to = email): Promise<number | undefined> =>
      (await notifications.get(notificationId(eventId, to)))?.userId;
    const running = (): ServiceHarness => {
      if (harness === undefined) throw new Error("not started");
      return harness;
    };

    it("gives each notification its order's owner or its email's holder then, never the email's later account", async () => {
      expect((await (await notificationStore.store.collection(migrationRecordsSpec)).get(1))?.state).to.equal(
        "done",
      );
      const recipients = [];
      for (const eventId of ["e1", "e2", "e3", "e4", "e5"]) recipients.push(await recipientOf(eventId));
      recipients.push(await recipientOf("e6", "root@x.test"));
      expect(recipients).to.deep.equal([0, 0, 0, ids.second, ids.second, ids.admin]);

      const later = { userId: ids.second, email, role: "CUSTOMER" as const };
      const mine = await running().client(NotificationService, later).listMyNotifications({ size: 100 });
      // Of the notifications the release before stored (beside what the accounts' own events tell now).
      const stored = ["e1", "e2", "e3", "e4", "e5"].map((eventId) => notificationId(eventId, email));
      const legacyOfMine = mine.notifications.filter((n) => stored.includes(n.id));
      expect(legacyOfMine.map((n) => n.id).sort()).to.deep.equal(
        [notificationId("e4", email), notificationId("e5", email)].sort(),
      );
      expect(
        await codeOf(
          running()
            .client(NotificationService, later)
            .markRead({ notificationId: notificationId("e3", email) }),
        ),
      ).to.equal(Code.PermissionDenied);
      // The shop keeps them all, each with its email (beside what the accounts' own events told).
      const admin = { userId: ids.admin, email: "root@x.test", role: "ADMIN" as const };
      const all = await running().client(NotificationService, admin).listAllNotifications({ size: 100 });
      expect(
        all.notifications.filter((n) => stored.includes(n.id)).map((n) => [n.userEmail, n.eventType]),
      ).to.have.deep.members([
        [email, "USER_REGISTERED"],
        [email, "ORDER_PLACED"],
        [email, "ORDER_STATUS_UPDATED"],
        [email, "ORDER_PLACED"],
        [email, "USER_LOGIN"],
      ]);
    });

    it("leaves a notice about an order whose owner is not known yet for a later pass, then gives it the owner", async () => {
      await orders.insert(storedOrder("ord_pending", email));
      await notifications.insert(
        legacyNotice(
          "e7",
          "PAYMENT_SUCCESS",
          "Payment of ₹19.99 for order ord_pending was successful.",
          Date.now(),
        ),
      );
      await delay(500); // several backfill passes
      expect(await recipientOf("e7")).to.equal(undefined);
      const pending = await orders.get("ord_pending");
      if (pending === undefined) throw new Error("no order");
      await orders.swap({ ...pending, _v: pending._v + 1, customerUserId: ids.second }, pending._v);
      await eventually(async () => ((await recipientOf("e7")) === ids.second ? true : undefined), 10_000);
    });
  });
}

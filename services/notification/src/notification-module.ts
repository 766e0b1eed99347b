/**
 * Wiring of the Notification service: ports in, routes, the event consumer and the recipient
 * backfill out, no socket. Its migrations run first at start (ADR 0102).
 */
import { createClient } from "@connectrpc/connect";
import { type Subscription, startConsumer } from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { backfillMigration, createBackfillTask, migrateDocumentStore } from "@commerce/runtime/store";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { NotificationService } from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { createAdminRoster } from "./admin-roster.js";
import { createNotificationConsumer } from "./notification-consumer.js";
import { createNotificationHandler } from "./notification-handler.js";
import { notificationOwners } from "./notification-owners.js";
import { createNotificationRules, notificationTopics } from "./notification-rules.js";
import { openNotificationCollections } from "./notification-store.js";
import { createNotifications } from "./notifications.js";
import { createProductNames } from "./product-names.js";

export interface NotificationOptions {
  /** ISO 4217 code of the amounts in messages (PAYMENT_CURRENCY). */
  readonly currency: string;
  /** Pause between the recipient backfill's passes after its migration. Default: the safety pass's. */
  readonly ownerBackfillIntervalMs?: number;
}

export async function buildNotificationService(
  ctx: ServiceContext,
  options: NotificationOptions,
): Promise<ServiceModule> {
  const collections = await openNotificationCollections(ctx.store);
  const notifications = createNotifications(collections);
  const admins = createAdminRoster(collections.adminAccounts);
  await admins.carryOver(collections.legacyAdmins);
  const rules = createNotificationRules({
    admins,
    productNames: createProductNames(collections.productNames),
    currency: options.currency,
  });
  const owners = notificationOwners({
    notifications: collections.notifications,
    accounts: createClient(AccountService, ctx.transport),
    orders: createClient(PayableOrderService, ctx.transport),
  });
  const ownersLater = createBackfillTask(owners, ctx.logger, options.ownerBackfillIntervalMs);
  let subscription: Subscription | undefined;
  return {
    name: "notification",
    services: [NotificationService],
    register(router) {
      router.service(NotificationService, createNotificationHandler(notifications));
    },
    async start() {
      await migrateDocumentStore(ctx.store, [backfillMigration(1, owners)], { logger: ctx.logger });
      ownersLater.start();
      subscription = await startConsumer(ctx.bus, {
        telemetry: ctx.telemetry,
        group: "notification-service",
        topics: notificationTopics,
        handler: createNotificationConsumer(rules, notifications),
        logger: ctx.logger,
      });
    },
    async stop() {
      await subscription?.close();
      await ownersLater.stop();
    },
  };
}

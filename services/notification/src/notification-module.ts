/**
 * Wiring of the Notification service: ports in, routes and the event consumer out, no socket.
 */
import { type Subscription, startConsumer } from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { NotificationService } from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { createAdminRoster } from "./admin-roster.js";
import { createNotificationConsumer } from "./notification-consumer.js";
import { createNotificationHandler } from "./notification-handler.js";
import { createNotificationRules, notificationTopics } from "./notification-rules.js";
import { openNotificationCollections } from "./notification-store.js";
import { createNotifications } from "./notifications.js";
import { createProductNames } from "./product-names.js";

export interface NotificationOptions {
  /** ISO 4217 code of the amounts in messages (PAYMENT_CURRENCY). */
  readonly currency: string;
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
  let subscription: Subscription | undefined;
  return {
    name: "notification",
    services: [NotificationService],
    register(router) {
      router.service(NotificationService, createNotificationHandler(notifications));
    },
    async start() {
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
    },
  };
}

import type { ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@commerce/runtime/identity";
import type { NotificationService } from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { defaultPageSize, type Notifications, type Paging } from "./notifications.js";

/** REST: /api/notifications, /api/notifications/{notificationId}/read, /api/notifications/all. */
export function createNotificationHandler(
  notifications: Notifications,
): ServiceImpl<typeof NotificationService> {
  return {
    async listMyNotifications(req, ctx) {
      const mine = await notifications.listMine(requireCaller(ctx), paging(req), req.unread, ctx.signal);
      return {
        notifications: mine.map((n) => ({
          id: n._id,
          eventType: n.eventType,
          message: n.message,
          timestamp: n.timestamp,
          read: n.read,
        })),
      };
    },
    async markRead(req, ctx) {
      await notifications.markRead(requireCaller(ctx), req.notificationId, ctx.signal);
      return { message: "notification marked as read" };
    },
    async listAllNotifications(req, ctx) {
      const all = await notifications.listAll(paging(req), ctx.signal);
      return {
        notifications: all.map((n) => ({
          id: n._id,
          userEmail: n.userEmail,
          eventType: n.eventType,
          message: n.message,
          timestamp: n.timestamp,
          read: n.read,
        })),
      };
    },
  };
}

/** The contract validated the bounds (page ≤ 100000, size 1 to 100); absent means the default. */
function paging(req: { page?: number | undefined; size?: number | undefined }): Paging {
  return { page: req.page ?? 0, size: req.size ?? defaultPageSize };
}

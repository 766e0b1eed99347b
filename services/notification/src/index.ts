/**
 * `@commerce/notification`: the Notification service's module; the process starts by path
 * (main.ts).
 */
export { buildNotificationService, type NotificationOptions } from "./notification-module.js";

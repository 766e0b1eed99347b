/**
 * Consumes auth-, order-, payment- and product-events and stores the notifications the rules
 * give. Idempotent by event id: each notification's `_id` is derived from the event id and the
 * recipient, so a redelivered event (or a retry after a partial failure) inserts nothing new.
 */
import { type EventHandler, type EventRecord, PermanentEventError } from "@commerce/runtime/events";
import type { NotificationRules } from "./notification-rules.js";
import type { Notifications } from "./notifications.js";

export function createNotificationConsumer(
  rules: NotificationRules,
  notifications: Notifications,
): EventHandler {
  return async (record, signal) => {
    const at = eventTime(record);
    for (const notice of await rules(record, at, signal)) {
      await notifications.deliver(
        {
          eventId: record.id,
          eventType: record.type,
          userEmail: notice.recipient,
          userId: notice.userId,
          message: notice.message,
          occurredAt: at,
        },
        signal,
      );
    }
  };
}

/** The event's CloudEvents time; a record without a readable one is dead-lettered at once. */
function eventTime(record: EventRecord): Date {
  const at = new Date(record.time);
  if (Number.isNaN(at.getTime())) {
    throw new PermanentEventError(`event ${record.id} (${record.type}) has no readable time: ${record.time}`);
  }
  return at;
}

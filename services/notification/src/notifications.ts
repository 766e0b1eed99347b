/**
 * The Notification domain: storing the notifications that events produce (once per event and
 * recipient), listing them newest first, and the one client write, marking one as read. A
 * notification is its recipient account's, by user id (ADR 0100): the email is shown only.
 */
import { forbidden, notFound } from "@commerce/runtime/errors";
import {
  changeDocument,
  unchanged,
  DuplicateKeyError,
  type FindOptions,
  type SortKey,
} from "@commerce/runtime/store";
import type { Caller } from "@commerce/runtime/identity";
import { formatTimestamp } from "@commerce/runtime/time";
import {
  notificationId,
  type NotificationCollections,
  type NotificationDocument,
} from "./notification-store.js";

/** A notification an event produced for one recipient. */
export interface NewNotification {
  readonly eventId: string;
  readonly eventType: string;
  /** Lower-cased email, shown. */
  readonly userEmail: string;
  /** The recipient's user id; 0 for an event that names none (only admins see it then). */
  readonly userId: number;
  readonly message: string;
  /** The event's time. */
  readonly occurredAt: Date;
}

/** Zero-based page and its size, as the contract validated them (size 1 to 100). */
export interface Paging {
  readonly page: number;
  readonly size: number;
}

export interface Notifications {
  /**
   * Stores `notification` unless the same event already gave this recipient one; returns
   * whether it was new. Idempotent by (event id, recipient) through the unique `_id`.
   */
  deliver(notification: NewNotification, signal?: AbortSignal): Promise<boolean>;
  /** The caller's account's notifications, newest first; only unread ones when `unreadOnly`. */
  listMine(
    caller: Caller,
    paging: Paging,
    unreadOnly: boolean,
    signal: AbortSignal,
  ): Promise<NotificationDocument[]>;
  /** Everyone's notifications, newest first (admin). */
  listAll(paging: Paging, signal: AbortSignal): Promise<NotificationDocument[]>;
  /** Marks the caller's account's notification read; marking it again changes nothing. */
  markRead(caller: Caller, notificationId: string, signal: AbortSignal): Promise<void>;
}

export const defaultPageSize = 20;

/** Newest first by the event's time (milliseconds), ties by id: pages never overlap or skip. */
const newestFirst: readonly SortKey<NotificationDocument>[] = [
  { field: "occurredAt", direction: -1 },
  { field: "_id", direction: -1 },
];

export function createNotifications({ notifications }: NotificationCollections): Notifications {
  function pageOf(paging: Paging, signal: AbortSignal): FindOptions<NotificationDocument> {
    return { sort: newestFirst, skip: paging.page * paging.size, limit: paging.size, signal };
  }

  return {
    async deliver(notification, signal) {
      try {
        await notifications.insert(
          {
            _id: notificationId(notification.eventId, notification.userEmail),
            _v: 1,
            userEmail: notification.userEmail,
            userId: notification.userId,
            eventType: notification.eventType,
            message: notification.message,
            timestamp: formatTimestamp(notification.occurredAt),
            occurredAt: notification.occurredAt.toISOString(),
            eventId: notification.eventId,
            read: false,
          },
          signal,
        );
        return true;
      } catch (error) {
        if (error instanceof DuplicateKeyError) return false; // a redelivery: already there
        throw error;
      }
    },

    listMine(caller, paging, unreadOnly, signal) {
      const filter = unreadOnly ? { userId: caller.userId, read: false } : { userId: caller.userId };
      return notifications.find(filter, pageOf(paging, signal));
    },

    listAll(paging, signal) {
      return notifications.find({}, pageOf(paging, signal));
    },

    async markRead(caller, id, signal) {
      // Lost only to another markRead of the same notification: the re-read sees it read.
      const outcome = await changeDocument(
        notifications,
        id,
        (current) => {
          if (current.userId !== caller.userId) throw forbidden("this notification belongs to another user");
          return current.read ? unchanged : { ...current, read: true };
        },
        signal,
      );
      if (outcome === undefined) throw notFound("notification not found");
    },
  };
}

/**
 * Notifications for the black-box suites: reading them over HTTP, and waiting for the ones an
 * event should produce (they arrive through the event bus, so eventually).
 */
import { expect } from "chai";
import { api } from "./api.js";
import { pollUntil } from "./polling.js";

export interface NotificationView {
  readonly id: string;
  readonly eventType: string;
  readonly message: string;
  readonly timestamp: string;
  readonly read: boolean;
}

export interface OwnedNotificationView extends NotificationView {
  readonly userEmail: string;
}

/** GET /api/notifications as the token's user; `query` without the leading `?`. */
export async function myNotifications(token: string, query = "size=100"): Promise<NotificationView[]> {
  const response = await api("GET", `/api/notifications?${query}`, { token });
  expect(response.status, response.text).to.equal(200);
  return response.body as NotificationView[];
}

/** GET /api/notifications/all as an admin. */
export async function allNotifications(
  adminToken: string,
  query = "size=100",
): Promise<OwnedNotificationView[]> {
  const response = await api("GET", `/api/notifications/all?${query}`, { token: adminToken });
  expect(response.status, response.text).to.equal(200);
  return response.body as OwnedNotificationView[];
}

/** The token's user's first notification (newest first) that `matches`, once there is one. */
export function awaitMyNotification(
  token: string,
  what: string,
  matches: (notification: NotificationView) => boolean,
): Promise<NotificationView> {
  return pollUntil(`notification: ${what}`, async () => (await myNotifications(token)).find(matches));
}

/** The first notification in the admin listing that `matches`, once there is one. */
export function awaitOwnedNotification(
  adminToken: string,
  what: string,
  matches: (notification: OwnedNotificationView) => boolean,
): Promise<OwnedNotificationView> {
  return pollUntil(`notification in the admin listing: ${what}`, async () =>
    (await allNotifications(adminToken)).find(matches),
  );
}

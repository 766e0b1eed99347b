/** Every notification of every user, for an admin, a page at a time. */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { navigate, useLocation, withQuery } from "../routing/router.js";
import { formatMoment, humanize } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded } from "../ui/status.js";
import { Pager } from "../ui/pager.js";

const pageSize = 50;

export function AllNotificationsPage() {
  const { search } = useLocation();
  const page = Math.max(0, Number.parseInt(search.get("page") ?? "0", 10) || 0);
  const load = useCallback(
    (signal: AbortSignal) =>
      outcomeOf(api.GET("/api/notifications/all", { params: { query: { page, size: pageSize } }, signal })),
    [page],
  );
  const { outcome, reload } = useResource(load);
  return (
    <Page title="All notifications">
      <Loaded outcome={outcome} what="notifications" retry={reload}>
        {(notifications) => (
          <>
            {notifications.length === 0 ? (
              <Empty>No notifications{page > 0 ? " on this page" : ""}.</Empty>
            ) : (
              <div className="table-wrap">
                <table>
                  <caption className="visually-hidden">Notifications, page {page + 1}</caption>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">User</th>
                      <th scope="col">Event</th>
                      <th scope="col">Message</th>
                      <th scope="col">Read</th>
                    </tr>
                  </thead>
                  <tbody>
                    {notifications.map((notification) => (
                      <tr key={notification.id}>
                        <td>{formatMoment(notification.timestamp)}</td>
                        <td>{notification.userEmail}</td>
                        <td>{humanize(notification.eventType)}</td>
                        <td>{notification.message}</td>
                        <td>{notification.read ? "Yes" : "No"}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <Pager
              label="Pages of notifications"
              page={page}
              hasNext={notifications.length >= pageSize}
              go={(to) => {
                navigate(withQuery("/admin/notifications", { page: to }));
              }}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** Every notification of every user, for an admin, a page at a time. */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { navigate, useLocation, withQuery } from "../routing/router.js";
import { formatMoment, humanize } from "../ui/format.js";
import { DataTable } from "../ui/data-table.js";
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
              <DataTable
                caption={`Notifications, page ${page + 1}`}
                hideCaption
                rows={notifications}
                rowKey={(notification) => notification.id}
                columns={[
                  { header: "When", cell: (notification) => formatMoment(notification.timestamp) },
                  { header: "User", cell: (notification) => notification.userEmail },
                  { header: "Event", cell: (notification) => humanize(notification.eventType) },
                  { header: "Message", cell: (notification) => notification.message },
                  { header: "Read", cell: (notification) => (notification.read ? "Yes" : "No") },
                ]}
              />
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

/** The signed-in person's notifications, all or unread only, a page at a time; mark one read. */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useAction } from "../api/use-action.js";
import { useResource } from "../api/use-resource.js";
import { navigate, useLocation, withQuery } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
import { formatMoment, humanize } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded, ProblemNotice } from "../ui/status.js";
import { unreadChanged } from "./unread-count.js";
import { Pager } from "../ui/pager.js";

const pageSize = 20;

export function NotificationsPage() {
  const { search } = useLocation();
  const page = Math.max(0, Number.parseInt(search.get("page") ?? "0", 10) || 0);
  const unreadOnly = search.get("unread") === "true";
  const load = useCallback(
    (signal: AbortSignal) =>
      outcomeOf(
        api.GET("/api/notifications", {
          params: { query: { page, size: pageSize, ...(unreadOnly ? { unread: true } : {}) } },
          signal,
        }),
      ),
    [page, unreadOnly],
  );
  const { outcome, reload } = useResource(load);
  const { run, problem } = useAction();

  const markRead = (notificationId: string): void => {
    void run(
      () => api.PUT("/api/notifications/{notificationId}/read", { params: { path: { notificationId } } }),
      {
        done: () => {
          announce("Marked as read.");
          unreadChanged();
          reload();
        },
      },
    );
  };

  return (
    <Page title="Notifications">
      <div className="filters">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={unreadOnly}
            onChange={(event) => {
              navigate(withQuery("/notifications", { unread: event.target.checked ? "true" : undefined }));
            }}
          />
          Unread only
        </label>
      </div>
      {problem === undefined ? null : <ProblemNotice problem={problem} />}
      <Loaded outcome={outcome} what="your notifications" retry={reload}>
        {(notifications) => (
          <>
            {notifications.length === 0 ? (
              <Empty>{unreadOnly ? "Nothing unread." : "You have no notifications."}</Empty>
            ) : (
              <ul className="notifications">
                {notifications.map((notification) => (
                  <li key={notification.id} className={notification.read ? "card" : "card unread"}>
                    <p className="notification-message">
                      {notification.read ? null : <span className="badge badge-unread">Unread</span>}{" "}
                      {notification.message}
                    </p>
                    <p className="muted">
                      {humanize(notification.eventType)} · {formatMoment(notification.timestamp)}
                    </p>
                    {notification.read ? null : (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => {
                          markRead(notification.id);
                        }}
                        aria-label={`Mark as read: ${notification.message}`}
                      >
                        Mark as read
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            )}
            <Pager
              label="Pages of notifications"
              page={page}
              hasNext={notifications.length >= pageSize}
              go={(to) => {
                navigate(withQuery("/notifications", { unread: unreadOnly ? "true" : undefined, page: to }));
              }}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

/**
 * The signed-in person's unread notifications, counted for the header's badge: read again on
 * each new page and whenever a page marks one read (`unreadChanged`). The API lists at most 100
 * a page: past that the badge says 99+.
 */
import { useCallback, useSyncExternalStore } from "react";
import { api, outcomeOf, type Outcome } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";

let version = 0;
const listeners = new Set<() => void>();

export function unreadChanged(): void {
  version += 1;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The count, undefined until known or when nobody is signed in. */
export function useUnreadCount(token: string | undefined, pathname: string): number | undefined {
  const changes = useSyncExternalStore(subscribe, () => version);
  const load = useCallback(
    (signal: AbortSignal): Promise<Outcome<readonly unknown[]>> =>
      token === undefined
        ? Promise.resolve({ ok: true, data: [] })
        : outcomeOf(
            api.GET("/api/notifications", { params: { query: { unread: true, size: 100 } }, signal }),
          ),
    [token],
  );
  const { outcome } = useResource(load, `${pathname}#${changes}`);
  return token === undefined || outcome === undefined || !outcome.ok ? undefined : outcome.data.length;
}

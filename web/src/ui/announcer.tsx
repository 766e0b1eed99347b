/**
 * One polite live region for the whole app: what changed without a new page (an item added to
 * the cart, a notification marked read) is said to screen readers. The words stay a few
 * seconds, and go with the page: a live region is read when it changes, not later.
 */
import { useEffect, useSyncExternalStore } from "react";
import { useLocation } from "../routing/router.js";

const showMs = 5000;
let message = "";
let sequence = 0;
let timer: number | undefined;
const listeners = new Set<() => void>();

function say(text: string): void {
  message = text;
  for (const listener of listeners) listener();
}

export function announce(text: string): void {
  // A repeat of the same words must be announced again: the region's text has to change.
  sequence += 1;
  say(sequence % 2 === 0 ? `${text}\u00a0` : text);
  window.clearTimeout(timer);
  timer = window.setTimeout(() => {
    say("");
  }, showMs);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function Announcer() {
  const text = useSyncExternalStore(subscribe, () => message);
  const { pathname } = useLocation();
  useEffect(() => {
    // A new page is announced by its heading (page.tsx); what was said on the last one is done.
    return () => {
      say("");
    };
  }, [pathname]);
  return (
    <div className="announcer" role="status" aria-live="polite">
      {text}
    </div>
  );
}

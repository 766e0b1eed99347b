/**
 * One polite live region for the whole app: what changed without a new page (an item added to
 * the cart, a notification marked read) is said to screen readers, and shown briefly.
 */
import { useSyncExternalStore } from "react";

let message = "";
let sequence = 0;
const listeners = new Set<() => void>();

export function announce(text: string): void {
  // A repeat of the same words must be announced again: the region's text has to change.
  sequence += 1;
  message = sequence % 2 === 0 ? `${text}\u00a0` : text;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function Announcer() {
  const text = useSyncExternalStore(subscribe, () => message);
  return (
    <div className="announcer" role="status" aria-live="polite">
      {text}
    </div>
  );
}

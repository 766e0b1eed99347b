/**
 * A Delete button that asks first: a second click on "Yes, delete …" deletes, "Keep it" takes
 * the question back. Deleting cannot be undone, so one stray click must not do it.
 */
import { useState } from "react";

export function ConfirmDelete({ name, onConfirm }: { name: string; onConfirm: () => void }) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <button
        type="button"
        className="secondary"
        aria-label={`Delete ${name}`}
        onClick={() => {
          setConfirming(true);
        }}
      >
        Delete
      </button>
    );
  return (
    <div className="actions">
      <button type="button" className="danger" onClick={onConfirm}>
        Yes, delete {name}
      </button>
      <button
        type="button"
        className="secondary"
        onClick={() => {
          setConfirming(false);
        }}
      >
        Keep it
      </button>
    </div>
  );
}

/** What a page shows while it waits, when there is nothing, and when something went wrong. */
import type { ReactNode } from "react";
import type { Outcome } from "../api/commerce.js";
import type { Problem } from "../api/problem.js";

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A problem, announced at once (role="alert"), with what to do about it when there is something. */
export function ProblemNotice({ problem, children }: { problem: Problem; children?: ReactNode }) {
  return (
    <div className="problem" role="alert">
      <p className="problem-title">{problem.title}</p>
      {problem.detail === undefined ? null : <p>{problem.detail}</p>}
      {children}
    </div>
  );
}

/**
 * The data of a read, or what stands in for it: loading (first read only), or its problem with
 * a way to try again.
 */
export function Loaded<T>({
  outcome,
  what,
  retry,
  children,
}: {
  outcome: Outcome<T> | undefined;
  what: string;
  retry: () => void;
  children: (data: T) => ReactNode;
}) {
  if (outcome === undefined) return <Loading what={what} />;
  if (!outcome.ok)
    return (
      <ProblemNotice problem={outcome.problem}>
        <button type="button" onClick={retry}>
          Try again
        </button>
      </ProblemNotice>
    );
  return <>{children(outcome.data)}</>;
}

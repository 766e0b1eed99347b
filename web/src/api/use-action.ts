/**
 * What a page does to the platform (a write), and how it went: whether a call is under way
 * (`busy`) and the problem of the last one refused. `run` clears the last problem, makes the
 * call and hands its data to `done`, or keeps its problem to show (worded for the page by
 * `reword`) and tells `failed`. One action may act on many things (the rows of a table): `about`
 * names the one a call is for, so that `problemAbout` shows a refusal beside its own row.
 *
 * A call that was sent is not aborted when the page goes: the write happens anyway, and what
 * follows it (a cart emptied once its order is placed) must too. A call the browser aborts (the
 * page unloading) has nobody waiting for it and is let go.
 */
import { useMemo, useState } from "react";
import { outcomeOf, type Answer, type Outcome } from "./commerce.js";
import type { Problem } from "./problem.js";

/** The id of what a call acts on. */
export type Subject = string | number;

export interface Then<T> {
  /** What follows success: say so, read the list again, go on to the next page. */
  readonly done: (data: T) => void;
  /** What follows a refusal besides showing it (a list that changed meanwhile is read again). */
  readonly failed?: (problem: Problem) => void;
  /** The refusal in this page's words, e.g. which order was not changed. */
  readonly reword?: (problem: Problem) => Problem;
  /** What this call acts on (a row's id), for `problemAbout`. */
  readonly about?: Subject;
}

export interface Action {
  /** One call to the API. */
  readonly run: <T>(call: () => Promise<Answer<T>>, then: Then<T>) => Promise<void>;
  /** Calls made together that answer one Outcome (logging in: the token, then the profile). */
  readonly runTask: <T>(task: () => Promise<Outcome<T>>, then: Then<T>) => Promise<void>;
  /** A problem found before any call was made (a pasted list that is not JSON). */
  readonly showProblem: (problem: Problem) => void;
  readonly busy: boolean;
  readonly problem: Problem | undefined;
  /** The problem, if the refused call was about `subject`. */
  readonly problemAbout: (subject: Subject) => Problem | undefined;
}

interface Refusal {
  readonly problem: Problem;
  readonly about: Subject | undefined;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

export function useAction(): Action {
  // A count, not a flag: a second call may start before the first one ends.
  const [pending, setPending] = useState(0);
  const [refusal, setRefusal] = useState<Refusal | undefined>(undefined);
  const verbs = useMemo(() => {
    async function runTask<T>(task: () => Promise<Outcome<T>>, then: Then<T>): Promise<void> {
      setRefusal(undefined);
      setPending((count) => count + 1);
      let outcome: Outcome<T>;
      try {
        outcome = await task();
      } catch (error) {
        if (isAbort(error)) return;
        throw error;
      } finally {
        setPending((count) => count - 1);
      }
      if (outcome.ok) {
        then.done(outcome.data);
        return;
      }
      const problem = then.reword === undefined ? outcome.problem : then.reword(outcome.problem);
      setRefusal({ problem, about: then.about });
      then.failed?.(problem);
    }
    return {
      runTask,
      run: <T>(call: () => Promise<Answer<T>>, then: Then<T>) => runTask(() => outcomeOf(call()), then),
      showProblem: (problem: Problem) => {
        setRefusal({ problem, about: undefined });
      },
    };
  }, []);
  return {
    ...verbs,
    busy: pending > 0,
    problem: refusal?.problem,
    problemAbout: (subject) =>
      refusal !== undefined && refusal.about === subject ? refusal.problem : undefined,
  };
}

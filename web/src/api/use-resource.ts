/**
 * What a page reads from the API: loading until the first answer, then the data or a Problem.
 * `load` names what to read (memoize it with useCallback on what it depends on): a new `load`
 * reads anew and aborts the read it replaces. `reload`, or a new `refresh` value (a reason to
 * read again that is not part of what is read), reads the same again, keeping the last answer
 * on screen meanwhile.
 */
import { useCallback, useEffect, useState } from "react";
import type { Outcome } from "./commerce.js";

export interface Resource<T> {
  /** The last answer to this `load`, kept while it is read again. */
  readonly outcome: Outcome<T> | undefined;
  readonly loading: boolean;
  readonly reload: () => void;
}

interface Settled<T> {
  readonly load: (signal: AbortSignal) => Promise<Outcome<T>>;
  readonly version: number;
  readonly refresh: unknown;
  readonly outcome: Outcome<T>;
}

export function useResource<T>(
  load: (signal: AbortSignal) => Promise<Outcome<T>>,
  refresh?: unknown,
): Resource<T> {
  const [version, setVersion] = useState(0);
  const [settled, setSettled] = useState<Settled<T> | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal).then(
      (outcome) => {
        if (!controller.signal.aborted) setSettled({ load, version, refresh, outcome });
      },
      (error: unknown) => {
        // Aborted: a newer read replaced this one. Anything else is a bug to see in the console.
        if (!controller.signal.aborted) console.error(error);
      },
    );
    return () => {
      controller.abort();
    };
  }, [load, version, refresh]);
  const reload = useCallback(() => {
    setVersion((current) => current + 1);
  }, []);
  const current = settled !== undefined && settled.load === load ? settled : undefined;
  return {
    outcome: current?.outcome,
    loading: current === undefined || current.version !== version || !Object.is(current.refresh, refresh),
    reload,
  };
}

/**
 * Runs tasks with the same key one after another, and tasks with different keys freely.
 *
 * Used where optimistic concurrency would otherwise make the writers of one process fight
 * each other: they queue instead, and only writers in other processes can still collide
 * (which the store's unique keys or compare-and-set settle, as before). Correctness never
 * depends on the queue; throughput under contention does.
 */
export type KeyedQueue = <T>(key: string, task: () => Promise<T>) => Promise<T>;

export function createKeyedQueue(): KeyedQueue {
  const tails = new Map<string, Promise<unknown>>();
  return (key, task) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

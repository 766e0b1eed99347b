/**
 * Lookups by key gathered into as few loads as they can share: a key asked while no load runs
 * starts one at once; a key asked while one runs joins it if it is among its keys, else waits
 * for it to end and goes into the next with the others asked meanwhile, each key once however
 * many callers ask it. Over a store that runs one statement at a time
 * (chDB), n callers then wait for two statements at most instead of n.
 */
export interface BatchedLookup<K, V> {
  /**
   * What the load found for `key`; undefined when it found nothing. `signal` is the call asking:
   * the call that opens a load lends it its signal (a store's span joins that call's trace).
   */
  get(key: K, signal?: AbortSignal): Promise<V | undefined>;
}

export type BatchLoad<K, V> = (keys: readonly K[], signal?: AbortSignal) => Promise<ReadonlyMap<K, V>>;

interface Waiter<V> {
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

/** `maxKeys` bounds one load; keys beyond it go into the loads after. */
export function createBatchedLookup<K, V>(load: BatchLoad<K, V>, maxKeys = 1_000): BatchedLookup<K, V> {
  const waiting = new Map<K, Waiter<V>[]>();
  let openedBy: AbortSignal | undefined;
  /** The keys of the load running, with their callers. */
  let loading: Map<K, Waiter<V>[]> | undefined;

  function loadWaiting(): void {
    if (loading !== undefined || waiting.size === 0) return;
    const batch = new Map([...waiting].slice(0, maxKeys));
    loading = batch;
    for (const key of batch.keys()) waiting.delete(key);
    const signal = openedBy;
    openedBy = undefined;
    void load([...batch.keys()], signal)
      .then(
        (found) => {
          for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(found.get(key));
        },
        (error: unknown) => {
          for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
        },
      )
      .finally(() => {
        loading = undefined;
        loadWaiting();
      });
  }

  return {
    get: (key, signal) =>
      new Promise<V | undefined>((resolve, reject) => {
        const waiters = loading?.get(key) ?? waiting.get(key);
        if (waiters === undefined) waiting.set(key, [{ resolve, reject }]);
        else waiters.push({ resolve, reject });
        openedBy ??= signal;
        loadWaiting();
      }),
  };
}

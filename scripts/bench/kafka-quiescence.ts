/**
 * Waits until a deployment on Kafka has finished the background work a load left behind: every
 * consumer group has committed every record of every event topic it consumes, and no topic grew
 * (no relay published) for `quietMs`. It asks the broker only, so waiting costs the deployment
 * nothing; polling the platform's API instead (quiescence.ts) makes its store answer a query
 * per poll, which on FerretDB is a scan of a collection the load keeps growing.
 */
import { setTimeout as delay } from "node:timers/promises";
import { eventTopics, type EventBus, type PartitionLag } from "@commerce/runtime/events";

export interface KafkaQuiescenceOptions {
  /** The consumer groups whose work counts. */
  readonly groups: readonly string[];
  /** How long nothing may change before the deployment counts as quiet (default 500 ms). */
  readonly quietMs?: number;
  /** Gives up after this long (default 120 s). */
  readonly timeoutMs?: number;
}

const pollMs = 100;

/** Each group's lag on every partition of every event topic; partitions a group never committed on are skipped. */
async function behind(
  bus: EventBus,
  groups: readonly string[],
): Promise<{ ends: string; caughtUp: boolean }> {
  const topics = eventTopics();
  const lags = await Promise.all(groups.map((group) => bus.lag(group, topics)));
  const consumed = (lag: PartitionLag): boolean =>
    lag.committed === undefined || BigInt(lag.committed) >= BigInt(lag.end);
  const ends = (lags[0] ?? []).map((lag) => `${lag.topic}/${lag.partition}@${lag.end}`).join(",");
  return { ends, caughtUp: lags.every((group) => group.every(consumed)) };
}

export async function untilKafkaQuiet(bus: EventBus, options: KafkaQuiescenceOptions): Promise<void> {
  const quietMs = options.quietMs ?? 500;
  const deadline = performance.now() + (options.timeoutMs ?? 120_000);
  let previous = "";
  let quietSince: number | undefined;
  while (performance.now() < deadline) {
    const { ends, caughtUp } = await behind(bus, options.groups);
    const now = performance.now();
    if (!caughtUp || ends !== previous) quietSince = undefined;
    else quietSince ??= now;
    if (quietSince !== undefined && now - quietSince >= quietMs) return;
    previous = ends;
    await delay(pollMs);
  }
  throw new Error(`the deployment was still busy after ${options.timeoutMs ?? 120_000} ms`);
}

/**
 * Test support: how many records every consumer group's dead-letter topic (`<group>.dead-letter`)
 * has ever been given, read through a real Kafka admin client: the topics the broker lists,
 * and for each the sum of its partitions' next offsets (what retention deletes does not lower
 * it). Two readings that agree mean no group parked anything in between.
 */
import { Kafka, logLevel } from "kafkajs";
import { correctKafkaJsRequestQueue } from "@commerce/runtime/events";
import { retry } from "@commerce/runtime/resilience";

export async function deadLettersWritten(brokers: string): Promise<Map<string, bigint>> {
  // As the platform's own clients are (kafkajs-request-queue.ts): no timer loop, no warning.
  correctKafkaJsRequestQueue();
  const kafka = new Kafka({
    clientId: "outage-dead-letters",
    brokers: brokers.split(","),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.endsWith(".dead-letter")).sort();
    const written = new Map<string, bigint>();
    for (const topic of topics) {
      // A topic made a moment ago may not have its leaders known yet (a retriable error).
      const offsets = await retry(() => admin.fetchTopicOffsets(topic), {
        maxAttempts: 20,
        backoff: { initialMs: 100, maxMs: 1_000, jitter: "full" },
        retryable: (error) => (error as { retriable?: unknown }).retriable === true,
      });
      written.set(
        topic,
        offsets.reduce((sum, { high }) => sum + BigInt(high), 0n),
      );
    }
    return written;
  } finally {
    await admin.disconnect();
  }
}

/** The dead-letter topics whose count grew from `before` to `after` (a new topic counts from 0). */
export function grown(before: ReadonlyMap<string, bigint>, after: ReadonlyMap<string, bigint>): string[] {
  return [...after]
    .filter(([topic, count]) => count > (before.get(topic) ?? 0n))
    .map(([topic, count]) => `${topic}: ${before.get(topic) ?? 0n} → ${count}`);
}

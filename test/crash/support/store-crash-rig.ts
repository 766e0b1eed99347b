/**
 * Test support: what a crash test of an analytics-store consumer runs on, all its own: a scratch
 * folder, a Kafka and a ClickHouse in it, the ClickHouse crash proxy in front of that ClickHouse
 * (clickhouse-crash-proxy.ts), a bus on that Kafka for the test to publish and read lags
 * with, and the environment of the process under test. Whatever started is stopped by `stop`, in reverse order, however far the start got.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EventBus, createKafkaBus } from "@commerce/runtime/events";
import type { ServiceProcessName } from "@commerce/runtime/config";
import { serviceTrustEnvironment } from "@commerce/runtime/identity";
import { createLogger } from "@commerce/runtime/logging";
import { startClickHouse, type ClickHouseInstance } from "#infra/clickhouse.js";
import { startKafka, type KafkaInstance } from "#infra/kafka.js";
import { startClickHouseCrashProxy, type ClickHouseCrashProxy } from "./clickhouse-crash-proxy.js";

export interface StoreCrashRig {
  readonly scratch: string;
  readonly kafka: KafkaInstance;
  readonly clickHouse: ClickHouseInstance;
  readonly proxy: ClickHouseCrashProxy;
  readonly bus: EventBus;
  /**
   * The whole environment of a consumer process on the rig: its folder `folder` in the scratch
   * one, Kafka, its store in `database` through the proxy, and the credentials of the service
   * process `service`.
   */
  processEnv(folder: string, database: string, service: ServiceProcessName): Record<string, string>;
  /** Runs `cleanup` before everything the rig started, at `stop`. */
  onStop(cleanup: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

/** `name` names the scratch folder and the bus's client. */
export async function startStoreCrashRig(name: string): Promise<StoreCrashRig> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const scratch = await mkdtemp(join(tmpdir(), `${name}-`));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
    const [startedKafka, startedClickHouse] = await Promise.allSettled([
      startKafka({ dataDir: join(scratch, "kafka") }),
      startClickHouse({ dataDir: join(scratch, "clickhouse") }),
    ]);
    for (const started of [startedKafka, startedClickHouse]) {
      if (started.status === "fulfilled") cleanups.push(() => started.value.stop());
    }
    if (startedKafka.status === "rejected") throw startedKafka.reason;
    if (startedClickHouse.status === "rejected") throw startedClickHouse.reason;
    const proxy = await startClickHouseCrashProxy(startedClickHouse.value.url);
    cleanups.push(() => proxy.close());
    const bus = await createKafkaBus({
      brokers: [startedKafka.value.brokers],
      clientId: name,
      logger: createLogger("error", name),
    });
    cleanups.push(() => bus.close());
    const secrets = {
      peerSecret: randomBytes(32).toString("base64url"),
      edgeSecret: randomBytes(32).toString("base64url"),
    };
    return {
      scratch,
      kafka: startedKafka.value,
      clickHouse: startedClickHouse.value,
      proxy,
      bus,
      processEnv: (folder, database, service) => ({
        HOST: "127.0.0.1",
        PORT: "0",
        LOG_LEVEL: "warn",
        DATA_DIR: join(scratch, folder),
        KAFKA_BROKERS: startedKafka.value.brokers,
        CLICKHOUSE_URL: `${proxy.url}/${database}`,
        ...serviceTrustEnvironment(service, secrets),
      }),
      onStop: (cleanup) => void cleanups.push(cleanup),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

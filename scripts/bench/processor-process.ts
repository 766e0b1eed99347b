/**
 * The analytics stream processor as its own process (services/analytics/src/processor/main.ts),
 * started as the multi-process topology starts a service (scripts/cluster/cluster.ts): a clean
 * environment with only the settings a service process reads, on loopback, PORT=0. It is ready
 * once it prints its listening line, which it does after its consumer has started.
 */
import { randomBytes } from "node:crypto";
import { serviceTrustEnvironment } from "@commerce/runtime/identity";
import { startServiceProcess } from "../testing/service-process.js";

export interface ProcessorProcessOptions {
  readonly kafkaBrokers: string;
  /** With the database in its path. */
  readonly clickHouseUrl: string;
  readonly dataDir: string;
}

export interface ProcessorProcess {
  readonly pid: number;
  /** `performance.now()` when the listening line arrived. */
  readonly readyAt: number;
  /** False once the process has exited. */
  running(): boolean;
  /** SIGTERM, then SIGKILL after 15 s; resolves once it exited. */
  stop(): Promise<void>;
}

const startTimeoutMs = 60_000;
const stopGraceMs = 15_000;

export async function startProcessorProcess(options: ProcessorProcessOptions): Promise<ProcessorProcess> {
  const secret = (): string => randomBytes(32).toString("base64url");
  const processor = await startServiceProcess({
    name: "analytics-processor",
    entry: "services/analytics/src/processor/main.ts",
    env: {
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "warn",
      DATA_DIR: options.dataDir,
      KAFKA_BROKERS: options.kafkaBrokers,
      CLICKHOUSE_URL: options.clickHouseUrl,
      // It serves no API and calls no peer: this gives it nothing, as the chart does.
      ...serviceTrustEnvironment("analytics-processor", { edgeSecret: secret(), peerSecret: secret() }),
    },
    timeoutMs: startTimeoutMs,
  });
  return {
    pid: processor.pid,
    readyAt: performance.now(),
    running: () => processor.exit() === undefined,
    async stop() {
      const timer = setTimeout(() => void processor.kill(), stopGraceMs);
      await processor.stop();
      clearTimeout(timer);
    },
  };
}

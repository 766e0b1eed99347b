/**
 * Settings every process reads, whichever services it runs (README "Configuration"): where it
 * listens, where embedded data lives, how much it logs, and which real infrastructure it uses.
 */
import type { EnvReader } from "./env-reader.js";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

const logLevels: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** What every process that listens reads: where, how much it logs, how large a body may be. */
export interface ServerSettings {
  /** Listen port: the edge's in embedded mode, the service's in its own process. */
  readonly port: number;
  /** Listen address. */
  readonly host: string;
  readonly logLevel: LogLevel;
  /** Largest accepted request body, in bytes (413 above). */
  readonly maxBodyBytes: number;
}

export interface ProcessSettings extends ServerSettings {
  /** Where embedded adapters keep their data (documents, event log, generated secrets). */
  readonly dataDir: string;
}

/** `PORT`, `HOST` and `LOG_LEVEL`: all a process that keeps no data reads (the `web` process). */
export function readServerSettings(env: EnvReader): ServerSettings {
  const logLevel = (env.string("LOG_LEVEL") ?? "info") as LogLevel;
  if (!logLevels.includes(logLevel))
    env.problem(`LOG_LEVEL must be one of ${logLevels.join(", ")}, got "${logLevel}"`);
  return {
    port: env.port("PORT", 8080),
    host: env.string("HOST") ?? "127.0.0.1",
    logLevel,
    maxBodyBytes: 1024 * 1024,
  };
}

export function readProcessSettings(env: EnvReader): ProcessSettings {
  return { ...readServerSettings(env), dataDir: env.path("DATA_DIR", ".data") };
}

/** Real infrastructure; each one left unset selects its embedded stand-in. */
export interface InfraSettings {
  readonly mongodbUrl: string | undefined;
  readonly kafkaBrokers: readonly string[] | undefined;
  /** Partitions of each topic the platform creates on Kafka. */
  readonly kafkaPartitions: number;
}

export function readInfraSettings(env: EnvReader): InfraSettings {
  const kafkaBrokers = env
    .string("KAFKA_BROKERS")
    ?.split(",")
    .map((broker) => broker.trim());
  for (const broker of kafkaBrokers ?? []) {
    if (!/^[^\s:]+:\d+$/.test(broker))
      env.problem(`KAFKA_BROKERS must be host:port[,host:port...], got "${broker}"`);
  }
  return {
    mongodbUrl: env.url("MONGODB_URL", ["mongodb:", "mongodb+srv:"]),
    kafkaBrokers,
    kafkaPartitions: env.integer("KAFKA_PARTITIONS", 3, 1, 1000),
  };
}

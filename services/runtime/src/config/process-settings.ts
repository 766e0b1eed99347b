/**
 * Settings every process reads, whichever services it runs (docs/configuration.md): where it
 * listens, where embedded data lives, how much it logs, and which real infrastructure it uses.
 */
import type { EnvReader } from "./env-reader.js";
import { declareSettings, serviceProcesses } from "./setting.js";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

const logLevels: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export const serverSettings = declareSettings({
  PORT: {
    default: "8080",
    meaning:
      "Listen port (0 picks a free one): the REST edge's in embedded mode, a service's own port in its process",
    readBy: ["embedded", ...serviceProcesses, "web", "analytics-rebuild"],
  },
  HOST: {
    default: "127.0.0.1",
    meaning: "Listen address (the images set `0.0.0.0`)",
    readBy: ["embedded", ...serviceProcesses, "web", "analytics-rebuild"],
  },
  LOG_LEVEL: {
    default: "info",
    meaning: "`fatal`, `error`, `warn`, `info`, `debug`, `trace`, or `silent`",
    readBy: ["embedded", ...serviceProcesses, "web", "analytics-rebuild", "events-replay"],
  },
});

export const dataSettings = declareSettings({
  DATA_DIR: {
    default: ".data",
    meaning: "Embedded data: documents, event log, analytics (chDB), generated secrets",
    readBy: ["embedded", ...serviceProcesses, "analytics-rebuild", "events-replay"],
  },
});

export const infraSettings = declareSettings({
  MONGODB_URL: {
    whenUnset: "embedded store",
    meaning: "Use MongoDB (or FerretDB): `mongodb://…` or `mongodb+srv://…`",
    readBy: ["embedded", ...serviceProcesses, "analytics-rebuild"],
  },
  KAFKA_BROKERS: {
    whenUnset: "embedded bus",
    meaning: "Use Kafka: `host:port[,host:port...]`; required by a service in its own process",
    readBy: ["embedded", ...serviceProcesses, "analytics-rebuild", "events-replay"],
  },
  KAFKA_PARTITIONS: {
    default: "3",
    meaning: "Partitions of each topic the platform creates on Kafka (1 to 1000)",
    readBy: ["embedded", ...serviceProcesses, "analytics-rebuild", "events-replay"],
  },
});

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
  return {
    port: env.port(serverSettings.PORT),
    host: env.stringOrDefault(serverSettings.HOST),
    logLevel: readLogLevel(env),
    maxBodyBytes: 1024 * 1024,
  };
}

/** `LOG_LEVEL`, for a process that listens nowhere (a command such as `events:replay`). */
export function readLogLevel(env: EnvReader): LogLevel {
  const logLevel = env.stringOrDefault(serverSettings.LOG_LEVEL) as LogLevel;
  if (!logLevels.includes(logLevel))
    env.problem(`LOG_LEVEL must be one of ${logLevels.join(", ")}, got "${logLevel}"`);
  return logLevel;
}

export function readProcessSettings(env: EnvReader): ProcessSettings {
  return { ...readServerSettings(env), dataDir: env.path(dataSettings.DATA_DIR) };
}

/** The bus: Kafka, or the embedded bus when `kafkaBrokers` is unset. */
export interface BusSettings {
  readonly kafkaBrokers: readonly string[] | undefined;
  /** Partitions of each topic the platform creates on Kafka. */
  readonly kafkaPartitions: number;
}

/** Real infrastructure; each one left unset selects its embedded stand-in. */
export interface InfraSettings extends BusSettings {
  readonly mongodbUrl: string | undefined;
}

export function readInfraSettings(env: EnvReader): InfraSettings {
  return {
    mongodbUrl: env.url(infraSettings.MONGODB_URL, ["mongodb:", "mongodb+srv:"]),
    ...readBusSettings(env),
  };
}

/** `KAFKA_BROKERS` and `KAFKA_PARTITIONS` alone, for what uses the bus and no store. */
export function readBusSettings(env: EnvReader): BusSettings {
  const kafkaBrokers = env
    .string(infraSettings.KAFKA_BROKERS)
    ?.split(",")
    .map((broker) => broker.trim());
  for (const broker of kafkaBrokers ?? []) {
    if (!/^[^\s:]+:\d+$/.test(broker))
      env.problem(`KAFKA_BROKERS must be host:port[,host:port...], got "${broker}"`);
  }
  return { kafkaBrokers, kafkaPartitions: env.integer(infraSettings.KAFKA_PARTITIONS, 1, 1000) };
}

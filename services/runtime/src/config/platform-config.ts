/**
 * The operator contract (DESIGN.md §8): every setting the platform reads from the environment,
 * parsed and validated once at start. Code receives this object; nothing else reads
 * `process.env`.
 */
import { resolve } from "node:path";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface PlatformConfig {
  /** Listen port of the edge (embedded mode) or of the service (one service per process). */
  readonly port: number;
  /** Listen address. */
  readonly host: string;
  /** Internal gRPC/Connect port of the in-process services in embedded mode; 0 picks a free port. */
  readonly grpcPort: number;
  /** Where embedded mode keeps its data (documents, event log, generated secrets). */
  readonly dataDir: string;
  /** HS512 key; undefined means "embedded mode generates one and keeps it in dataDir". */
  readonly jwtSecret: Uint8Array | undefined;
  readonly jwtTtlSeconds: number;
  readonly admin: { readonly email: string; readonly password: string } | undefined;
  readonly payment: {
    readonly keySecret: string | undefined;
    readonly webhookSecret: string | undefined;
    readonly currency: string;
    /** Base URL of a Razorpay-compatible gateway; undefined selects the embedded sandbox. */
    readonly gatewayUrl: string | undefined;
  };
  readonly mongodbUrl: string | undefined;
  readonly kafkaBrokers: readonly string[] | undefined;
  /** Partitions of each topic the platform creates on Kafka. */
  readonly kafkaPartitions: number;
  readonly clickhouseUrl: string | undefined;
  readonly logLevel: LogLevel;
  /** Largest accepted request body, in bytes (413 above). */
  readonly maxBodyBytes: number;
}

/** Every invalid variable, each with its own message. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** Minimum HS512 key length: the hash output size (RFC 7518 §3.2). */
export const minJwtSecretBytes = 64;

const logLevels: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

type Env = Readonly<Record<string, string | undefined>>;

export function loadPlatformConfig(env: Env, cwd = process.cwd()): PlatformConfig {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const port = (name: string, fallback: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value > 65535) {
      problems.push(`${name} must be a port number from 0 to 65535, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, protocols: readonly string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
      }
    } catch {
      problems.push(`${name} must be a URL, got "${raw}"`);
    }
    return raw;
  };

  const jwtSecretRaw = read("JWT_SECRET");
  let jwtSecret: Uint8Array | undefined;
  if (jwtSecretRaw !== undefined) {
    jwtSecret = new TextEncoder().encode(jwtSecretRaw);
    if (jwtSecret.length < minJwtSecretBytes) {
      problems.push(
        `JWT_SECRET must be at least ${minJwtSecretBytes} bytes for HS512, got ${jwtSecret.length}`,
      );
    }
  }

  const jwtTtlSeconds = parseDuration(read("JWT_TTL") ?? "1h");
  if (jwtTtlSeconds === undefined || jwtTtlSeconds < 60 || jwtTtlSeconds > 30 * 86400) {
    problems.push(
      `JWT_TTL must be a duration from 1m to 30d such as "3600", "15m", "1h", got "${env["JWT_TTL"] ?? ""}"`,
    );
  }

  const adminEmail = read("ADMIN_EMAIL");
  const adminPassword = read("ADMIN_PASSWORD");
  if ((adminEmail === undefined) !== (adminPassword === undefined)) {
    problems.push("ADMIN_EMAIL and ADMIN_PASSWORD must be set together");
  }
  if (adminEmail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(adminEmail)) {
    problems.push(`ADMIN_EMAIL must be an email address, got "${adminEmail}"`);
  }
  if (adminPassword !== undefined && (adminPassword.length < 8 || adminPassword.length > 128)) {
    problems.push("ADMIN_PASSWORD must be 8 to 128 characters (the password policy)");
  }

  const currency = read("PAYMENT_CURRENCY") ?? "INR";
  if (!/^[A-Z]{3}$/.test(currency))
    problems.push(`PAYMENT_CURRENCY must be an ISO 4217 code such as INR, got "${currency}"`);

  const brokersRaw = read("KAFKA_BROKERS");
  const kafkaBrokers = brokersRaw?.split(",").map((b) => b.trim());
  for (const broker of kafkaBrokers ?? []) {
    if (!/^[^\s:]+:\d+$/.test(broker))
      problems.push(`KAFKA_BROKERS must be host:port[,host:port...], got "${broker}"`);
  }

  const partitionsRaw = read("KAFKA_PARTITIONS") ?? "3";
  const kafkaPartitions = Number(partitionsRaw);
  if (!/^\d+$/.test(partitionsRaw) || kafkaPartitions < 1 || kafkaPartitions > 1000) {
    problems.push(`KAFKA_PARTITIONS must be a whole number from 1 to 1000, got "${partitionsRaw}"`);
  }

  const logLevel = (read("LOG_LEVEL") ?? "info") as LogLevel;
  if (!logLevels.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${logLevels.join(", ")}, got "${logLevel}"`);

  const config: PlatformConfig = {
    port: port("PORT", 8080),
    host: read("HOST") ?? "127.0.0.1",
    grpcPort: port("GRPC_PORT", 9090),
    dataDir: resolve(cwd, read("DATA_DIR") ?? ".data"),
    jwtSecret,
    jwtTtlSeconds: jwtTtlSeconds ?? 3600,
    admin:
      adminEmail !== undefined && adminPassword !== undefined
        ? { email: adminEmail, password: adminPassword }
        : undefined,
    payment: {
      keySecret: read("PAYMENT_KEY_SECRET"),
      webhookSecret: read("PAYMENT_WEBHOOK_SECRET"),
      currency,
      gatewayUrl: url("PAYMENT_GATEWAY_URL", ["http:", "https:"]),
    },
    mongodbUrl: url("MONGODB_URL", ["mongodb:", "mongodb+srv:"]),
    kafkaBrokers,
    kafkaPartitions,
    clickhouseUrl: url("CLICKHOUSE_URL", ["http:", "https:"]),
    logLevel,
    maxBodyBytes: 1024 * 1024,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** "3600", "90s", "15m", "1h", "7d" → seconds; undefined when malformed. */
export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  if (match === null) return undefined;
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as "" | "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

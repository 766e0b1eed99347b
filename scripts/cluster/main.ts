/**
 * `npm run cluster:up` / `npm run cluster:down`: the multi-process topology on loopback
 * (ADR 0019), Envoy in front of one process per service, on the store and bus
 * that MONGODB_URL / KAFKA_BROKERS select (unset: the shared FerretDB and Kafka of
 * `npm run infra:up`, started if needed).
 *
 * `up` starts a detached daemon (daemon.ts) that keeps the processes running and reports any
 * that exits, waits until everything is ready, and prints shell-sourceable lines on stdout
 * (progress and incidents go to stderr): BASE_URL (Envoy), one <NAME>_SERVICE_URL per service,
 * and the deployment's settings the black-box suites need, so that
 *   eval "$(npm run -s cluster:up)" && npx mocha 'test/acceptance/**\/*.spec.ts'
 * runs the acceptance suite through Envoy. `up` on a running topology only prints. `down` stops
 * it (not the infrastructure: that is `infra:down`).
 *
 * The analytics store is the ClickHouse in CLICKHOUSE_URL (unset: the shared one of `infra:up`):
 * the stream processor and the Analytics service, two processes, must share one.
 *
 * Settings: JWT_SECRET, ADMIN_EMAIL / ADMIN_PASSWORD, EDGE_SECRET, PEER_SECRET,
 * PAYMENT_KEY_SECRET and PAYMENT_WEBHOOK_SECRET from the environment when set, else generated
 * once into .cluster/secrets; JWT_TTL, PAYMENT_CURRENCY, PAYMENT_GATEWAY_URL / PAYMENT_KEY_ID,
 * PAYMENT_SANDBOX and RESERVATION_TTL when set (without a gateway, PAYMENT_SANDBOX=true);
 * CLUSTER_PORT (Envoy, default 10000; the services take the ports after it);
 * CLUSTER_REPLICAS (e.g. "product=2,order=2");
 * the OpenTelemetry variables (OTEL_*, but OTEL_SERVICE_NAME: each service has its own name) go
 * to every service, and Envoy traces into OTEL_EXPORTER_OTLP_ENDPOINT when it is set (the
 * Jaeger of infra:up prints it); Envoy follows CORS_ALLOWED_ORIGINS, CORS_ALLOWED_HEADERS and
 * CORS_MAX_AGE.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileSecrets, generateHeaderSecret, generateJwtSecret, generatePassword } from "@commerce/embedded";
import { corsSettingNames } from "@commerce/edge";
import { createClickHouseComponent, readClickHouseInfraConfig } from "../infra/clickhouse.js";
import { createFerretDbComponent } from "../infra/ferretdb.js";
import { readInfraConfig } from "../infra/infra-config.js";
import { createKafkaComponent, readKafkaInfraConfig } from "../infra/kafka.js";
import { readLivePid, stopProcess } from "../infra/processes.js";
import { shellAssignment } from "../infra/shell-assignment.js";
import {
  clusterDir,
  daemonLog,
  optionsFile,
  pidFile,
  readState,
  stateFile,
  type ClusterState,
  type DaemonOptions,
} from "./cluster-state.js";
import { deployableServices, serviceUrlVariable, type ServiceName } from "./service-catalog.js";

const startTimeoutMs = 240_000;
const progress = (message: string): void => {
  process.stderr.write(`cluster: ${message}\n`);
};

function parseReplicas(raw: string | undefined): Partial<Record<ServiceName, number>> {
  const replicas: Partial<Record<ServiceName, number>> = {};
  for (const entry of (raw ?? "").split(",").filter((e) => e.trim() !== "")) {
    const [name, count] = entry.split("=").map((part) => part.trim());
    const known = deployableServices.find((s) => s.name === name);
    if (known === undefined || !/^[1-9]$/.test(count ?? "")) {
      throw new Error(`CLUSTER_REPLICAS must be like "product=2,order=2" (1 to 9 each), got "${entry}"`);
    }
    replicas[known.name] = Number(count);
  }
  return replicas;
}

async function options(env: NodeJS.ProcessEnv): Promise<DaemonOptions> {
  const infra = readInfraConfig(env);
  let mongodbUrl = env["MONGODB_URL"];
  let kafkaBrokers = env["KAFKA_BROKERS"];
  if (mongodbUrl === undefined || mongodbUrl === "") {
    progress("MONGODB_URL is not set: using the shared FerretDB of infra:up");
    mongodbUrl = (await createFerretDbComponent(infra, progress).up())["MONGODB_URL"];
  }
  if (kafkaBrokers === undefined || kafkaBrokers === "") {
    progress("KAFKA_BROKERS is not set: using the shared Kafka of infra:up");
    kafkaBrokers = (await createKafkaComponent(infra, readKafkaInfraConfig(env), progress).up())[
      "KAFKA_BROKERS"
    ];
  }
  let clickhouseUrl = env["CLICKHOUSE_URL"];
  if (clickhouseUrl === undefined || clickhouseUrl === "") {
    progress("CLICKHOUSE_URL is not set: using the shared ClickHouse of infra:up");
    clickhouseUrl = (await createClickHouseComponent(infra, readClickHouseInfraConfig(env), progress).up())[
      "CLICKHOUSE_URL"
    ];
  }
  const secrets = fileSecrets(clusterDir);
  const given = (name: string, file: string, generate: () => string): string => {
    const value = env[name];
    return value !== undefined && value !== "" ? value : secrets.value(file, generate);
  };
  const jwtSecret = given("JWT_SECRET", "jwt-secret", generateJwtSecret);
  const edgeSecret = given("EDGE_SECRET", "edge-secret", generateHeaderSecret);
  const peerSecret = given("PEER_SECRET", "peer-secret", generateHeaderSecret);
  const adminEmail = env["ADMIN_EMAIL"] ?? "admin@commerce.local";
  const adminPassword = given("ADMIN_PASSWORD", "admin-password", generatePassword);
  const port = Number(env["CLUSTER_PORT"] ?? 10000);
  if (!Number.isInteger(port) || port < 1024 || port > 65000) {
    throw new Error(`CLUSTER_PORT must be a port from 1024 to 65000, got "${env["CLUSTER_PORT"] ?? ""}"`);
  }
  const settings: Record<string, string> = {
    ADMIN_EMAIL: adminEmail,
    ADMIN_PASSWORD: adminPassword,
    PAYMENT_KEY_SECRET: given("PAYMENT_KEY_SECRET", "payment-key-secret", generateHeaderSecret),
    PAYMENT_WEBHOOK_SECRET: given("PAYMENT_WEBHOOK_SECRET", "payment-webhook-secret", generateHeaderSecret),
    CLICKHOUSE_URL: clickhouseUrl ?? "",
  };
  // The other settings services own (service-catalog.ts), as the environment gives them.
  for (const name of new Set(deployableServices.flatMap((service) => service.owns))) {
    const value = env[name];
    if (name !== "JWT_SECRET" && !(name in settings) && value !== undefined && value !== "") {
      settings[name] = value;
    }
  }
  // A topology for development and tests: with no gateway given, it chooses the sandbox, which
  // the Payment process must be told (ADR 0117), and says so.
  if (settings["PAYMENT_GATEWAY_URL"] === undefined && settings["PAYMENT_SANDBOX"] === undefined) {
    settings["PAYMENT_SANDBOX"] = "true";
    progress(
      "no PAYMENT_GATEWAY_URL: payments go to the sandbox gateway, which takes no money (PAYMENT_SANDBOX=true)",
    );
  }
  return {
    stateDir: clusterDir,
    mongodbUrl,
    kafkaBrokers: kafkaBrokers ?? "",
    jwtSecret,
    edgeSecret,
    peerSecret,
    settings,
    edgeSettings: Object.fromEntries(
      corsSettingNames.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
    ),
    replicas: parseReplicas(env["CLUSTER_REPLICAS"]),
    ports: { edge: port, servicesFrom: port + 1 },
    logLevel: env["LOG_LEVEL"] ?? "info",
    telemetry: Object.fromEntries(
      Object.entries(env).filter(
        (entry): entry is [string, string] =>
          entry[0].startsWith("OTEL_") && entry[0] !== "OTEL_SERVICE_NAME" && entry[1] !== undefined,
      ),
    ),
  };
}

/** The deployment's settings that black-box suites need, as the running daemon has them. */
function settingsOf(options: DaemonOptions): Record<string, string> {
  return {
    MONGODB_URL: options.mongodbUrl ?? "",
    KAFKA_BROKERS: options.kafkaBrokers,
    JWT_SECRET: options.jwtSecret,
    EDGE_SECRET: options.edgeSecret,
    PEER_SECRET: options.peerSecret,
    ADMIN_EMAIL: options.settings?.ADMIN_EMAIL ?? "",
    ADMIN_PASSWORD: options.settings?.ADMIN_PASSWORD ?? "",
    PAYMENT_KEY_SECRET: options.settings?.PAYMENT_KEY_SECRET ?? "",
    PAYMENT_WEBHOOK_SECRET: options.settings?.PAYMENT_WEBHOOK_SECRET ?? "",
    CLICKHOUSE_URL: options.settings?.CLICKHOUSE_URL ?? "",
    CORS_ALLOWED_ORIGINS: options.edgeSettings?.CORS_ALLOWED_ORIGINS ?? "",
  };
}

function print(state: ClusterState, settings: Record<string, string>): void {
  const lines: [string, string][] = [["BASE_URL", state.baseUrl ?? ""]];
  for (const service of deployableServices) {
    const urls = state.services?.[service.name] ?? [];
    const variable = serviceUrlVariable(service.name);
    lines.push([variable, urls[0] ?? ""]);
    urls
      .slice(1)
      .forEach((url, i) => lines.push([variable.replace(/_SERVICE_URL$/, `_${i + 2}_SERVICE_URL`), url]));
  }
  lines.push(...Object.entries(settings));
  for (const [name, value] of lines) process.stdout.write(`${shellAssignment(name, value)}\n`);
  for (const incident of state.incidents) {
    progress(`incident: ${incident.process} ${incident.exit} at ${incident.at} (restarted)`);
  }
}

async function up(env: NodeJS.ProcessEnv): Promise<void> {
  await mkdir(clusterDir, { recursive: true });
  const running = await readLivePid(pidFile, "daemon.ts");
  let spawnedAt = 0;
  if (running === undefined) {
    // A previous daemon's last word (a failure, say) is not this one's.
    await rm(stateFile, { force: true });
    await writeFile(optionsFile, JSON.stringify(await options(env)), { mode: 0o600 });
    await chmod(optionsFile, 0o600);
    const logFd = openSync(daemonLog, "a");
    try {
      const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "daemon.ts")], {
        detached: true,
        stdio: ["ignore", logFd, logFd],
        cwd: join(import.meta.dirname, "..", ".."),
      });
      child.unref();
      spawnedAt = Date.now();
      progress(`starting (daemon pid ${child.pid ?? "?"}, log ${daemonLog})`);
    } finally {
      closeSync(logFd);
    }
  } else {
    progress(`already running (daemon pid ${running})`);
  }
  const daemon = JSON.parse(await readFile(optionsFile, "utf8")) as DaemonOptions;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    await delay(250);
    const state = await readState();
    if (state?.status === "ready") {
      print(state, settingsOf(daemon));
      return;
    }
    if (state?.status === "failed")
      throw new Error(`the topology failed: ${state.error ?? `see ${daemonLog}`}`);
    // Give a fresh daemon a moment to write its pid file before taking its absence as an exit.
    const gone = (await readLivePid(pidFile, "daemon.ts")) === undefined;
    if (gone && Date.now() - spawnedAt > 5_000) throw new Error(`the daemon exited; see ${daemonLog}`);
    if (Date.now() > deadline)
      throw new Error(`not ready within ${startTimeoutMs / 1000} s; see ${daemonLog}`);
  }
}

async function down(): Promise<void> {
  const pid = await readLivePid(pidFile, "daemon.ts");
  if (pid === undefined) {
    progress("not running");
    return;
  }
  const outcome = await stopProcess(pid, 60_000);
  progress(`stopped (daemon pid ${pid}, ${outcome})`);
}

const command = process.argv[2];
(command === "up"
  ? up(process.env)
  : command === "down"
    ? down()
    : Promise.reject(new Error("usage: up|down"))
).catch((error: unknown) => {
  progress(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});

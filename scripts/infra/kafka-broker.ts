/**
 * One single-node Kafka in KRaft mode (broker and controller in one JVM) on loopback, declared
 * for the shared lifecycle (local-server.ts): its `server.properties`, its storage format, its
 * command line, and the readiness probe. Shared by the `infra:up` instance and the private
 * instances of test runs (kafka.ts). Both release lines (kafka-runtime.ts) take the same settings
 * and storage format: each one below exists in 3.9 and in 4.x (4.0 removed the ZooKeeper
 * settings and `log.message.format.version`, which we never set).
 *
 * Settings and why:
 *   - `auto.create.topics.enable=false`: a topic exists because the code created it (the Kafka
 *     bus creates its topics), never because a typo was published to;
 *   - `num.partitions=3`: the default of topics created without a count, as in the contract;
 *   - replication factor 1 and `min.isr` 1 for the internal topics: there is one broker;
 *   - `offsets.topic.num.partitions=5` (default 50): the offsets topic is created when the first
 *     group appears, and 50 partitions make that first join take seconds on a laptop;
 *   - `group.initial.rebalance.delay.ms=0`: a test's consumer starts at once instead of waiting
 *     3 s for more members.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { correctKafkaJsRequestQueue } from "@commerce/runtime/events";
import {
  ensureKafkaRuntime,
  kafkaLauncherClass,
  type KafkaLine,
  type KafkaRuntime,
} from "./kafka-runtime.js";
import type { LocalServer, ServerPorts } from "./local-server.js";
import { acceptsConnections } from "./processes.js";

/** The class the launcher runs; the broker's command line contains it. */
const kafkaMainClass = "kafka.Kafka";

/**
 * The broker's loopback ports: `port`, the clients' listener, and `controllerPort`, the
 * controller's listener (KRaft quorum traffic).
 */
export type KafkaPorts = ServerPorts<"port" | "controllerPort">;

/** Where one broker keeps its files and which loopback ports it binds. */
interface KafkaBrokerLayout extends KafkaPorts {
  /** Where `server.properties` is written. */
  readonly configDir: string;
  /** Kafka's `log.dirs`: topic data and the KRaft metadata log. */
  readonly dataDir: string;
}

/** `127.0.0.1:<port>`: what `KAFKA_BROKERS` holds. */
export function brokersAt(port: number): string {
  return `127.0.0.1:${port}`;
}

function serverProperties(layout: KafkaBrokerLayout): string {
  const settings: Record<string, string | number> = {
    "process.roles": "broker,controller",
    "node.id": 1,
    "controller.quorum.voters": `1@127.0.0.1:${layout.controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${layout.port},CONTROLLER://127.0.0.1:${layout.controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${layout.port}`,
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": "PLAINTEXT",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "log.dirs": layout.dataDir,
    "num.partitions": 3,
    "auto.create.topics.enable": "false",
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 5,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
  };
  return `${Object.entries(settings)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join("\n")}\n`;
}

/** Java properties escaping for values: backslashes, and the characters that end a line. */
function escapeProperty(value: string): string {
  return value.replace(/[\\\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\n" ? "\\n" : "\\r"));
}

/**
 * A random KRaft cluster id: 16 bytes in URL-safe base64 without padding, as Kafka's Uuid. Like
 * Kafka's own generator, never one that starts with "-": the storage tool would read it as an
 * option.
 */
function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

/**
 * Writes `server.properties` and formats the storage if it is new. Returns the properties file.
 * Existing storage keeps its data: a broker restarted on the same directory sees its topics and
 * committed offsets again (the ports may differ between runs: static quorum voters are read from
 * the configuration, not from the metadata log). Kafka 4.x still formats this way: with
 * `controller.quorum.voters` set, `format` needs none of the options of a dynamic quorum
 * (`--standalone`, `--initial-controllers`). A 4.x broker starts on storage a 3.9 broker
 * formatted (a `.infra/kafka` from before issue 42); a 3.9 broker refuses storage 4.x formatted.
 */
async function prepareKafkaStorage(runtime: KafkaRuntime, layout: KafkaBrokerLayout): Promise<string> {
  await mkdir(layout.configDir, { recursive: true });
  await mkdir(layout.dataDir, { recursive: true });
  const properties = join(layout.configDir, "server.properties");
  await writeFile(properties, serverProperties(layout));
  const formatted = await stat(join(layout.dataDir, "meta.properties")).then(
    () => true,
    () => false,
  );
  if (!formatted) {
    await runJava(runtime, [
      "kafka.tools.StorageTool",
      "format",
      "--cluster-id",
      randomClusterId(),
      "--config",
      properties,
    ]);
  }
  return properties;
}

/** JVM options: a small heap, quick start-up, our logging. */
function jvmOptions(runtime: KafkaRuntime): string[] {
  return [
    "-Xms64m",
    "-Xmx512m",
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    // C1 only: a test broker's life is mostly start-up, where C2's compile time is wasted.
    "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
    runtime.loggingOption,
  ];
}

/**
 * The broker's command line (after the `java` command). With `exitOnStdinEof`, the launcher
 * shuts the broker down when its stdin closes, tying it to the caller's lifetime.
 */
function kafkaBrokerArgs(runtime: KafkaRuntime, properties: string, exitOnStdinEof: boolean): string[] {
  return [
    ...jvmOptions(runtime),
    ...(exitOnStdinEof ? ["-Dlauncher.exitOnStdinEof=true"] : []),
    "-cp",
    runtime.classpath,
    kafkaLauncherClass,
    kafkaMainClass,
    properties,
  ];
}

/** Runs a Kafka command-line tool class to completion; its output is kept for the error. */
function runJava(runtime: KafkaRuntime, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      runtime.java,
      [...jvmOptions(runtime), "-cp", runtime.classpath, kafkaLauncherClass, ...args],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    const keep = (chunk: string) => {
      output = (output + chunk).slice(-4_000);
    };
    child.stdout.setEncoding("utf8").on("data", keep);
    child.stderr.setEncoding("utf8").on("data", keep);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`${args[0] ?? "java"} failed (${code ?? signal ?? "unknown"}):\n${output.trimEnd()}`),
        );
    });
  });
}

/**
 * True when the broker at `127.0.0.1:<port>` serves clients: a KafkaJS admin can connect and
 * list topics (metadata is served only once the broker has caught up with the controller).
 * A plain TCP probe comes first, so polling a broker that is not listening yet stays cheap.
 */
export async function kafkaAnswers(port: number, timeoutMs = 2_000): Promise<boolean> {
  if (!(await acceptsConnections("127.0.0.1", port))) return false;
  // As the Kafka bus does: without it the probe's connection polls every millisecond.
  correctKafkaJsRequestQueue();
  const admin = new Kafka({
    clientId: "infra-probe",
    brokers: [brokersAt(port)],
    connectionTimeout: timeoutMs,
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Kafka of release `line` for the shared lifecycle, run by the JDK in `javaBin` (undefined:
 * `java` from PATH).
 */
export function kafkaBroker(
  javaBin: string | undefined,
  line: KafkaLine,
): LocalServer<KafkaRuntime, keyof KafkaPorts> {
  return {
    name: "kafka",
    title: "Kafka",
    portNames: ["port", "controllerPort"],
    // A JVM start plus the broker catching up with its controller; seconds, more on a busy box.
    startTimeoutMs: 60_000,
    // Kafka's shutdown hook closes the logs and leaves the quorum: about 2 s.
    stopGraceMs: 20_000,
    probeIntervalMs: 50,
    processSignature: `${kafkaLauncherClass} ${kafkaMainClass}`,
    install: (log) => ensureKafkaRuntime({ javaBin, line, log }),
    async prepare(runtime, dir, ports, withStarter) {
      const layout = { configDir: dir, dataDir: join(dir, "data"), ...ports };
      const properties = await prepareKafkaStorage(runtime, layout);
      // The launcher watches its stdin itself when asked to.
      return { command: runtime.java, args: kafkaBrokerArgs(runtime, properties, withStarter) };
    },
    address: ({ port }) => brokersAt(port),
    answers: ({ port }) => kafkaAnswers(port, 1_000),
    env: ({ port }) => ({ KAFKA_BROKERS: brokersAt(port) }),
    describe: (runtime, dir) => `Kafka ${runtime.version}, data in ${join(dir, "data")}`,
  };
}

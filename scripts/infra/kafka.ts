/**
 * Apache Kafka in KRaft mode, the broker of our tests (ADR 0072: real infrastructure on
 * loopback, jars from Maven Central, no containers). See kafka-runtime.ts for how the jars and
 * the launcher are cached and kafka-broker.ts for the broker's settings.
 *
 * Two ways in, as for FerretDB:
 *   - `createKafkaComponent`: the shared instance of `npm run infra:up`, detached, on a fixed
 *     port (`KAFKA_PORT`, default 19092), data under `<repo>/.infra/kafka/data`;
 *   - `startKafka`: a private instance for one test run, on free ports, tied to the caller's
 *     lifetime (the launcher exits when the caller's end of its stdin closes).
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { adoptRunning, launchDetached, type DetachedServer } from "./detached-server.js";
import type { InfraComponent } from "./infra-component.js";
import { InfraConfigError, readPort, type InfraConfig } from "./infra-config.js";
import {
  brokersAt,
  kafkaAnswers,
  kafkaBrokerArgs,
  kafkaMainClass,
  prepareKafkaStorage,
} from "./kafka-broker.js";
import { ensureKafkaRuntime, kafkaLauncherClass, type KafkaRuntime } from "./kafka-runtime.js";
import { freePort, startDetached, stopDetached, superviseChild, tailOf, waitUntil } from "./processes.js";

/** A JVM start plus the broker catching up with its controller; seconds, more on a busy box. */
const startTimeoutMs = 60_000;
/** Kafka's shutdown hook closes the logs and leaves the quorum: about 2 s. */
const stopGraceMs = 20_000;
/** What identifies our broker in a process listing (`readLivePid`). */
const processSignature = `${kafkaLauncherClass} ${kafkaMainClass}`;

/** The Kafka part of the infrastructure configuration, read once from the environment. */
export interface KafkaInfraConfig {
  /** `$JAVA_HOME/bin`, or undefined to take `java` and `javac` from PATH. */
  readonly javaBin: string | undefined;
  /** Client port of the shared broker (`KAFKA_PORT`, default 19092). */
  readonly port: number;
  /** Controller port of the shared broker (`KAFKA_CONTROLLER_PORT`, default 19093). */
  readonly controllerPort: number;
}

/** Which JDK runs the broker: all `startKafka` needs from the environment. */
function javaBinOf(env: NodeJS.ProcessEnv): string | undefined {
  const javaHome = env["JAVA_HOME"];
  return javaHome !== undefined && isAbsolute(javaHome) ? join(javaHome, "bin") : undefined;
}

/** Reads and checks the Kafka settings of `infra:up` (ports, cache, JDK) once, at start. */
export function readKafkaInfraConfig(env: NodeJS.ProcessEnv): KafkaInfraConfig {
  const port = readPort(env, "KAFKA_PORT", 19092);
  const controllerPort = readPort(env, "KAFKA_CONTROLLER_PORT", 19093);
  if (port === controllerPort) {
    throw new InfraConfigError(`KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ, both are ${port}`);
  }
  return { javaBin: javaBinOf(env), port, controllerPort };
}

/** The shared instance behind `npm run infra:up` / `infra:down`. */
export function createKafkaComponent(
  config: InfraConfig,
  kafka: KafkaInfraConfig,
  log: (message: string) => void,
): InfraComponent {
  const dir = join(config.stateDir, "kafka");
  const dataDir = join(dir, "data");
  const pidFile = join(dir, "kafka.pid");
  const logFile = join(dir, "kafka.log");
  const brokers = brokersAt(kafka.port);
  const server: DetachedServer = {
    title: "Kafka",
    address: brokers,
    pidFile,
    processSignature,
    logFile,
    startTimeoutMs,
    probeIntervalMs: 100,
    answers: () => kafkaAnswers(kafka.port, 1_000),
  };

  return {
    name: "kafka",

    async up() {
      const env = { KAFKA_BROKERS: brokers };
      if (await adoptRunning(server, log)) return env;
      const runtime = await ensureKafkaRuntime({ javaBin: kafka.javaBin, log });
      await launchDetached(
        server,
        {
          async start() {
            const properties = await prepareKafkaStorage(runtime, {
              configDir: dir,
              dataDir,
              port: kafka.port,
              controllerPort: kafka.controllerPort,
            });
            return startDetached({
              command: runtime.java,
              args: kafkaBrokerArgs(runtime, properties, false),
              logFile,
              pidFile,
            });
          },
          describe: (pid, seconds) =>
            `Kafka ${runtime.version} started (pid ${pid}) at ${brokers} in ${seconds} s, data in ${dataDir}`,
        },
        log,
      );
      return env;
    },

    down: () => stopDetached(pidFile, processSignature, stopGraceMs, log),
  };
}

/** A private broker for one test run (see `startKafka`). */
export interface KafkaOptions {
  /**
   * The instance's directory (created if missing): `server.properties`, `kafka.log` and the
   * broker's data under `data/`. A fresh directory gives an empty broker; starting again on
   * the same directory (and port) brings back its topics and committed offsets.
   */
  readonly dataDir: string;
  /** Client port on 127.0.0.1; a free one by default. */
  readonly port?: number;
  /** The JDK's `bin` directory; defaults to `$JAVA_HOME/bin` of this process's environment. */
  readonly javaBin?: string;
  /** Fetch progress; defaults to stderr. */
  readonly log?: (message: string) => void;
}

/** A running private broker; the caller owns it and stops it. */
export interface KafkaInstance {
  /** `127.0.0.1:<port>`, the value of `KAFKA_BROKERS`. */
  readonly brokers: string;
  readonly port: number;
  readonly pid: number;
  /**
   * SIGTERM (Kafka's shutdown hook closes the logs), then SIGKILL after a grace period;
   * resolves once the process has exited. Safe to call more than once.
   */
  stop(): Promise<void>;
}

/**
 * Starts a private single-node Kafka for one test run and resolves once a client can list
 * topics.
 *
 * Ports: Kafka cannot report a port it picked itself (and the KRaft controller's address must
 * be known before start), so free ports are found first by binding port 0; if another process
 * takes one in between, the start is retried on new ports.
 *
 * The instance cannot outlive the caller: the launcher shuts the broker down when its stdin
 * reaches end of file, which happens when the caller exits, even on a crash. Its handles are
 * unref'd, so forgetting `stop()` does not keep the caller alive either.
 */
export async function startKafka(options: KafkaOptions): Promise<KafkaInstance> {
  const log = options.log ?? ((message: string) => process.stderr.write(`kafka: ${message}\n`));
  const runtime = await ensureKafkaRuntime({ javaBin: options.javaBin ?? javaBinOf(process.env), log });
  await mkdir(options.dataDir, { recursive: true });
  const attempts = options.port === undefined ? 3 : 1;
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await freePort());
    let controllerPort = await freePort();
    while (controllerPort === port) controllerPort = await freePort();
    try {
      return await launch(runtime, options.dataDir, port, controllerPort);
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes("Address already in use");
      if (!portTaken || attempt >= attempts) throw error;
      log(`a port was taken before the broker bound it, retrying on other ports`);
    }
  }
}

async function launch(
  runtime: KafkaRuntime,
  dir: string,
  port: number,
  controllerPort: number,
): Promise<KafkaInstance> {
  const logFile = join(dir, "kafka.log");
  const properties = await prepareKafkaStorage(runtime, {
    configDir: dir,
    dataDir: join(dir, "data"),
    port,
    controllerPort,
  });
  const logFd = openSync(logFile, "a");
  let child;
  try {
    child = spawn(runtime.java, kafkaBrokerArgs(runtime, properties, true), {
      stdio: ["pipe", logFd, logFd],
    });
  } finally {
    closeSync(logFd);
  }
  const supervised = superviseChild(child, stopGraceMs);
  const { exited, spawnFailed, stop } = supervised;

  const describeFailure = async (why: string) => {
    const tail = await tailOf(logFile, 20);
    return new Error(`Kafka (${logFile}) ${why}${tail === "" ? "" : `:\n${tail}`}`);
  };

  try {
    const ready = await Promise.race([
      waitUntil(() => kafkaAnswers(port, 1_000), {
        timeoutMs: startTimeoutMs,
        intervalMs: 50,
        abort: exited,
      }),
      spawnFailed,
    ]);
    const exit = supervised.exit();
    if (!ready || exit !== undefined) {
      throw await describeFailure(
        exit === undefined
          ? `does not answer at ${brokersAt(port)} after ${startTimeoutMs / 1000} s`
          : `exited before it was ready (${exit.code ?? exit.signal ?? "unknown"})`,
      );
    }
    const pid = child.pid;
    if (pid === undefined) throw await describeFailure("has no pid");

    supervised.release();
    return { brokers: brokersAt(port), port, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Apache Kafka in KRaft mode, the broker of our tests (ADR 0072: real infrastructure on
 * loopback, jars from Maven Central, no containers). See kafka-runtime.ts for how the jars and
 * the launcher are cached and kafka-broker.ts for the broker's settings.
 *
 * Two ways in, as for FerretDB, ClickHouse and Jaeger:
 *   - `createKafkaComponent`: the shared instance of `npm run infra:up`, detached, on a fixed
 *     port (`KAFKA_PORT`, default 19092), data under `<repo>/.infra/kafka/data`;
 *   - `startKafka`: a private instance for one test run, on free ports, tied to the caller's
 *     lifetime (private-server.ts).
 * Both run the 4.x line (ADR 0120); `startKafka({ line: "3.9" })` runs Kafka 3.9, which only the
 * order-cost bench's deployment from before issue 42 asks for.
 */
import { isAbsolute, join } from "node:path";
import { createInfraComponent, type InfraComponent } from "./infra-component.js";
import { InfraConfigError, readPort, type InfraConfig } from "./infra-config.js";
import { brokersAt, kafkaBroker } from "./kafka-broker.js";
import { defaultKafkaLine, kafkaVersion, type KafkaLine } from "./kafka-runtime.js";
import type { LaunchedServer } from "./local-server.js";
import { startPrivateServer, type ClientPortOptions } from "./private-server.js";

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
  const { javaBin, ...ports } = kafka;
  return createInfraComponent(kafkaBroker(javaBin, defaultKafkaLine), config.stateDir, ports, log);
}

/**
 * A private broker for one test run (see `startKafka`). Starting again on the same directory and
 * port brings back its topics and committed offsets.
 */
export interface KafkaOptions extends ClientPortOptions {
  /** The JDK's `bin` directory; defaults to `$JAVA_HOME/bin` of this process's environment. */
  readonly javaBin?: string;
  /**
   * The release line; the 4.x line everything runs by default. "3.9" is for the order-cost
   * bench's deployment from before issue 42 only. A data directory belongs to one line: 4.x can
   * take over storage that 3.9 formatted, never the reverse.
   */
  readonly line?: KafkaLine;
}

/** A running private broker; the caller owns it and stops it (Kafka's shutdown hook closes the logs). */
export interface KafkaInstance extends LaunchedServer {
  /** `127.0.0.1:<port>`, the value of `KAFKA_BROKERS`. */
  readonly brokers: string;
  readonly port: number;
  /** The Kafka version of its line's pom, e.g. "4.4.0". */
  readonly version: string;
}

/**
 * Starts a private single-node Kafka for one test run and resolves once a client can list
 * topics.
 */
export async function startKafka(options: KafkaOptions): Promise<KafkaInstance> {
  const line = options.line ?? defaultKafkaLine;
  const broker = kafkaBroker(options.javaBin ?? javaBinOf(process.env), line);
  const version = await kafkaVersion(line);
  const { ports, pid, stop } = await startPrivateServer(broker, options, { port: options.port });
  return { brokers: brokersAt(ports.port), port: ports.port, version, pid, stop };
}

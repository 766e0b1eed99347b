/**
 * What it takes to run our local Apache Kafka: its jars, fetched from Maven Central with Maven
 * (ADR 0072: jars from Maven Central, no containers), and our small Java launcher
 * (./kafka/KafkaLauncher.java), both artifacts of the project's cache
 * (scripts/cache/cached-artifact.ts):
 *   kafka-<version>-<hash>/            one line's runtime classpath (hash: its pom.xml)
 *   kafka-launcher-<hash>/             KafkaLauncher.class (hash: its source)
 * Maven's own repository (~/.m2) keeps the jars it downloads, so an empty project cache costs a
 * copy.
 *
 * Two release lines (ADR 0120): the 4.x line that everything runs (./kafka/pom.xml), and 3.9
 * (./kafka/kafka-3.9/pom.xml), kept only for the order-cost bench's deployment from before
 * issue 42. Each line has its pom, its logging configuration and its own cache artifact.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runInstallCommand } from "../cache/install-command.js";

const kafkaSourceDir = join(import.meta.dirname, "kafka");
const launcherSource = join(kafkaSourceDir, "KafkaLauncher.java");

/** A Kafka release line we run: "4" (the default everywhere) or "3.9" (the bench's "before"). */
export type KafkaLine = "4" | "3.9";

/** The line a broker runs unless asked for another. */
export const defaultKafkaLine: KafkaLine = "4";

/** Where a line's jars are declared and how its broker is told its logging configuration. */
interface KafkaLineSource {
  readonly pomFile: string;
  /** The JVM option that points the line's logging framework at our configuration. */
  readonly loggingOption: string;
}

const lineSources: Readonly<Record<KafkaLine, KafkaLineSource>> = {
  // Kafka 4 logs through log4j2 (the SLF4J binding is in the pom).
  "4": {
    pomFile: join(kafkaSourceDir, "pom.xml"),
    loggingOption: `-Dlog4j2.configurationFile=${join(kafkaSourceDir, "log4j2.properties")}`,
  },
  // Kafka 3.9 logs through reload4j, which reads log4j 1 properties.
  "3.9": {
    pomFile: join(kafkaSourceDir, "kafka-3.9", "pom.xml"),
    loggingOption: `-Dlog4j.configuration=file:${join(kafkaSourceDir, "kafka-3.9", "log4j.properties")}`,
  },
};

/** The main class of the launcher; also what identifies our broker in a process listing. */
export const kafkaLauncherClass = "KafkaLauncher";

/** Which line, which JDK builds and runs it, and the cache's options. */
export interface KafkaRuntimeOptions extends ArtifactOptions {
  /** The JDK's `bin` directory, or undefined to use `java`, `javac` and `mvn` from PATH. */
  readonly javaBin: string | undefined;
  /** The release line; `defaultKafkaLine` when absent. */
  readonly line?: KafkaLine;
}

/** Everything needed to start a JVM with Kafka and our launcher on its classpath. */
export interface KafkaRuntime {
  readonly line: KafkaLine;
  /** The Kafka version of the line's pom.xml, e.g. "4.4.0". */
  readonly version: string;
  /** The `java` command. */
  readonly java: string;
  /** The JVM's `-cp` value: the launcher's directory and every Kafka jar (a `/*` wildcard). */
  readonly classpath: string;
  /** The JVM option that configures the broker's logging (WARN and the start and stop lines). */
  readonly loggingOption: string;
}

/** The Kafka version of a line, read from its pom.xml so that the pom is the one place it is set. */
export async function kafkaVersion(line: KafkaLine = defaultKafkaLine): Promise<string> {
  const { pomFile } = lineSources[line];
  const pom = await readFile(pomFile, "utf8");
  const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1]?.trim();
  if (version === undefined || !/^[\w.-]+$/.test(version)) {
    throw new Error(`${pomFile} has no usable <kafka.version> property`);
  }
  return version;
}

/** Returns an up-to-date runtime, fetching the jars and compiling the launcher if needed. */
export async function ensureKafkaRuntime(options: KafkaRuntimeOptions): Promise<KafkaRuntime> {
  const { javaBin, line = defaultKafkaLine, ...cache } = options;
  const { pomFile, loggingOption } = lineSources[line];
  const version = await kafkaVersion(line);
  const tool = (name: string): string => (javaBin === undefined ? name : join(javaBin, name));
  const [jars, launcher] = await Promise.all([
    ensureArtifact(
      {
        name: `kafka-${version}`,
        inputs: [await readFile(pomFile)],
        build: async (dir) => {
          await runInstallCommand(
            "mvn",
            [
              "-q",
              "-B",
              "-Dstyle.color=never",
              "-f",
              pomFile,
              "dependency:copy-dependencies",
              "-DincludeScope=runtime",
              `-DoutputDirectory=${dir}`,
            ],
            {
              missing:
                "Maven 3.8 or newer (and a JDK 17) is needed to fetch Kafka: https://maven.apache.org/download.cgi",
            },
          );
        },
      },
      cache,
    ),
    ensureArtifact(
      {
        name: "kafka-launcher",
        inputs: [await readFile(launcherSource)],
        build: async (dir) => {
          await runInstallCommand(tool("javac"), ["--release", "17", "-d", dir, launcherSource], {
            missing: "a JDK 17 (javac) is needed to compile the Kafka launcher",
          });
        },
      },
      cache,
    ),
  ]);
  return {
    line,
    version,
    java: tool("java"),
    classpath: `${launcher.dir}:${join(jars.dir, "*")}`,
    loggingOption,
  };
}

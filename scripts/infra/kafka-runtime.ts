/**
 * What it takes to run our local Apache Kafka: its jars, fetched from Maven Central with Maven
 * (ADR 0072: jars from Maven Central, no containers), and our small Java launcher
 * (./kafka/KafkaLauncher.java), both artifacts of the project's cache
 * (scripts/cache/cached-artifact.ts):
 *   kafka-<version>-<hash>/            the broker's runtime classpath (hash: pom.xml)
 *   kafka-launcher-<hash>/             KafkaLauncher.class (hash: its source)
 * Maven's own repository (~/.m2) keeps the jars it downloads, so an empty project cache costs a
 * copy.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runInstallCommand } from "../cache/install-command.js";

const kafkaSourceDir = join(import.meta.dirname, "kafka");
const pomFile = join(kafkaSourceDir, "pom.xml");
const launcherSource = join(kafkaSourceDir, "KafkaLauncher.java");

/** Where the broker's logging is configured (read by the JVM through `-Dlog4j.configuration`). */
export const kafkaLog4jProperties = join(kafkaSourceDir, "log4j.properties");

/** The main class of the launcher; also what identifies our broker in a process listing. */
export const kafkaLauncherClass = "KafkaLauncher";

/** Which JDK builds and runs it, and the cache's options. */
export interface KafkaRuntimeOptions extends ArtifactOptions {
  /** The JDK's `bin` directory, or undefined to use `java`, `javac` and `mvn` from PATH. */
  readonly javaBin: string | undefined;
}

/** Everything needed to start a JVM with Kafka and our launcher on its classpath. */
export interface KafkaRuntime {
  /** The Kafka version of pom.xml, e.g. "3.9.2". */
  readonly version: string;
  /** The `java` command. */
  readonly java: string;
  /** The JVM's `-cp` value: the launcher's directory and every Kafka jar (a `/*` wildcard). */
  readonly classpath: string;
}

/** The Kafka version, read from pom.xml so that the pom is the one place it is set. */
export async function kafkaVersion(): Promise<string> {
  const pom = await readFile(pomFile, "utf8");
  const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1]?.trim();
  if (version === undefined || !/^[\w.-]+$/.test(version)) {
    throw new Error(`${pomFile} has no usable <kafka.version> property`);
  }
  return version;
}

/** Returns an up-to-date runtime, fetching the jars and compiling the launcher if needed. */
export async function ensureKafkaRuntime(options: KafkaRuntimeOptions): Promise<KafkaRuntime> {
  const { javaBin, ...cache } = options;
  const version = await kafkaVersion();
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
  return { version, java: tool("java"), classpath: `${launcher.dir}:${join(jars.dir, "*")}` };
}

/**
 * What it takes to run our local Apache Kafka: its jars, fetched from Maven Central with Maven
 * (docs/architecture.md §6: jars from Maven Central, no containers), and our small Java launcher
 * (./kafka/KafkaLauncher.java), both kept in the per-user cache outside the repo so a fresh
 * clone or a `git clean` does not pay for them again.
 *
 * Layout under `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform`:
 *   kafka-<version>/libs/                 the broker's runtime classpath, plus MANIFEST
 *   kafka-<version>/launcher-<hash>/      KafkaLauncher.class, keyed by the source's hash
 *
 * Both are written under a temporary name and renamed into place, so an interrupted or
 * concurrent fetch never leaves a half-filled directory under the final name. `libs/MANIFEST`
 * records the hash of pom.xml and every jar with its size: the directory counts as complete
 * only when all of them are there, and a changed pom.xml fetches again.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

const kafkaSourceDir = join(import.meta.dirname, "kafka");
const pomFile = join(kafkaSourceDir, "pom.xml");
const launcherSource = join(kafkaSourceDir, "KafkaLauncher.java");
const manifestName = "MANIFEST";
// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const ansiEscape = /\u001b\[[0-9;]*m/g;

/** Where the broker's logging is configured (read by the JVM through `-Dlog4j.configuration`). */
export const kafkaLog4jProperties = join(kafkaSourceDir, "log4j.properties");

/** The main class of the launcher; also what identifies our broker in a process listing. */
export const kafkaLauncherClass = "KafkaLauncher";

/** Where the runtime is cached and which JDK builds and runs it. */
export interface KafkaRuntimeOptions {
  /** `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform`. */
  readonly cacheRoot: string;
  /** The JDK's `bin` directory, or undefined to use `java`, `javac` and `mvn` from PATH. */
  readonly javaBin: string | undefined;
  /** Progress messages (the first fetch downloads about 50 MB). */
  readonly log: (message: string) => void;
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
  const version = await kafkaVersion();
  const versionDir = join(options.cacheRoot, `kafka-${version}`);
  const tool = (name: string): string => (options.javaBin === undefined ? name : join(options.javaBin, name));
  const [libs, launcher] = await Promise.all([
    ensureJars(versionDir, options.log),
    ensureLauncher(versionDir, tool("javac")),
  ]);
  return { version, java: tool("java"), classpath: `${launcher}:${join(libs, "*")}` };
}

async function pomHash(): Promise<string> {
  return createHash("sha256")
    .update(await readFile(pomFile))
    .digest("hex");
}

/** The manifest text of a directory of jars: the pom's hash, then `<size> <name>` per jar. */
async function manifestOf(dir: string, hash: string): Promise<string> {
  const jars = (await readdir(dir)).filter((name) => name.endsWith(".jar")).sort();
  const lines = await Promise.all(jars.map(async (name) => `${(await stat(join(dir, name))).size} ${name}`));
  return [`pom ${hash}`, ...lines, ""].join("\n");
}

/** True when `dir` holds a manifest for this pom and every jar it lists, at its size. */
async function isComplete(dir: string, hash: string): Promise<boolean> {
  let manifest: string;
  try {
    manifest = await readFile(join(dir, manifestName), "utf8");
  } catch {
    return false;
  }
  if (!manifest.startsWith(`pom ${hash}\n`)) return false;
  try {
    return manifest === (await manifestOf(dir, hash));
  } catch {
    return false;
  }
}

async function ensureJars(versionDir: string, log: (message: string) => void): Promise<string> {
  const libs = join(versionDir, "libs");
  const hash = await pomHash();
  if (await isComplete(libs, hash)) return libs;

  await mkdir(versionDir, { recursive: true });
  const partial = `${libs}.partial-${process.pid}`;
  const stale = `${libs}.stale-${process.pid}`;
  log(`fetching the Kafka jars from Maven Central into ${libs}`);
  const started = performance.now();
  try {
    await rm(partial, { recursive: true, force: true });
    await run(
      "mvn",
      [
        "-q",
        "-B",
        "-Dstyle.color=never",
        "-f",
        pomFile,
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        `-DoutputDirectory=${partial}`,
      ],
      "Maven 3.8 or newer (and a JDK 17) is needed to fetch Kafka: https://maven.apache.org/download.cgi",
    );
    await writeFile(join(partial, manifestName), await manifestOf(partial, hash));
    // A concurrent fetch may have finished first; its result is as good as ours.
    if (await isComplete(libs, hash)) return libs;
    // An outdated or broken directory moves aside first: rename cannot replace a non-empty one.
    await rename(libs, stale).catch(() => undefined);
    await rename(partial, libs);
  } finally {
    await Promise.all([partial, stale].map((dir) => rm(dir, { recursive: true, force: true })));
  }
  log(`fetched the Kafka jars in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return libs;
}

async function ensureLauncher(versionDir: string, javac: string): Promise<string> {
  const source = await readFile(launcherSource);
  const hash = createHash("sha256").update(source).digest("hex").slice(0, 16);
  const dir = join(versionDir, `launcher-${hash}`);
  try {
    await stat(join(dir, `${kafkaLauncherClass}.class`));
    return dir;
  } catch {
    // Not compiled yet.
  }
  const partial = `${dir}.partial-${process.pid}`;
  try {
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    await run(
      javac,
      ["--release", "17", "-d", partial, launcherSource],
      "a JDK 17 (javac) is needed to compile the Kafka launcher",
    );
    await rename(partial, dir).catch(async (error: unknown) => {
      // A concurrent compile got there first.
      if ((await stat(join(dir, `${kafkaLauncherClass}.class`)).catch(() => undefined)) === undefined) {
        throw error;
      }
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  return dir;
}

/**
 * Runs a build tool with its output on our stderr (stdout is reserved for `infra:up`'s lines),
 * without colour codes: Maven 3.8 prints some even in batch mode.
 */
function run(command: string, args: readonly string[], missing: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const forward = (chunk: string): void => {
      const text = chunk.replace(ansiEscape, "");
      if (text !== "") process.stderr.write(text);
    };
    child.stdout.setEncoding("utf8").on("data", forward);
    child.stderr.setEncoding("utf8").on("data", forward);
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(error.code === "ENOENT" ? new Error(`${command} not found: ${missing}`) : error);
    });
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} failed (${code ?? signal ?? "unknown"})`));
    });
  });
}

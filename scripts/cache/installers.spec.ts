/**
 * Every install or build the project does, requested several times at once on an empty cache,
 * as a new machine's first `npm test` requests them (ADR 0069): one
 * build per artifact, and every caller gets a path that works. Cold, the Go builds take
 * minutes (Go's own caches make a second run a matter of links); hence the generous timeout.
 */
import { expect } from "chai";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ArtifactOptions } from "./cached-artifact.js";
import { ensureChromium } from "../infra/chromium.js";
import { ensureClickHouseRuntime } from "../infra/clickhouse-runtime.js";
import { ensureEnvoy, envoyVersion } from "../infra/envoy.js";
import { ensureFerretDbLauncher } from "../infra/ferretdb.js";
import { ensureJaeger, jaegerVersion } from "../infra/jaeger-build.js";
import { ensureKafkaRuntime } from "../infra/kafka-runtime.js";
import { ensurePostgreSqlRuntime } from "../infra/postgresql-runtime.js";
import { ensureEtcd } from "../k8s/etcd.js";
import { ensureHelm } from "../k8s/helm.js";
import { ensureControlPlaneBinaries } from "../k8s/kube-control-plane-binaries.js";
import { kubeVersions } from "../k8s/kube-versions.js";
import { ensureKubeconform } from "../k8s/kubeconform.js";
import { ensureKwok } from "../k8s/kwok.js";
import { ensureSkaffold } from "../k8s/skaffold.js";
import { ensureGrpcurl, grpcurlVersion } from "../testing/grpcurl.js";
import { ensureApiTestTools } from "../testing/schemathesis.js";

const run = promisify(execFile);
const callers = 3;

/** What a command prints on stdout and stderr together (tools disagree on which to use). */
async function printed(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const { stdout, stderr } = await run(command, args, { env: { ...process.env, ...env } });
  return `${stdout}${stderr}`;
}

describe("installers on an empty cache, each requested several times at once", function () {
  this.timeout(45 * 60_000);
  let root: string;
  let lines: string[];
  let options: ArtifactOptions;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "installers-spec-"));
    lines = [];
    options = { root, log: (line) => lines.push(line) };
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Calls `install` several times at once; expects one build per artifact and one answer. */
  async function onceForAll<T>(install: () => Promise<T>, artifacts = 1): Promise<T> {
    const results = await Promise.all(Array.from({ length: callers }, install));
    expect(
      lines.filter((line) => line.startsWith("building ")),
      lines.join("\n"),
    ).to.have.length(artifacts);
    expect(new Set(results.map((result) => JSON.stringify(result))).size).to.equal(1);
    expect((await readdir(root)).filter((name) => name.includes(".partial-"))).to.deep.equal([]);
    return results[0]!;
  }

  it("builds FerretDB's launcher once, and it runs", async () => {
    const launcher = await onceForAll(() => ensureFerretDbLauncher(options));
    expect(await printed(launcher, ["-h"])).to.include("-exit-on-stdin-eof");
  });

  it("unpacks Debian's PostgreSQL once, and its server and initdb report the Debian version", async () => {
    const runtime = await onceForAll(() => ensurePostgreSqlRuntime(options));
    expect(runtime.version).to.match(/^15\.\d+-/);
    const upstream = runtime.version.split("-")[0]!;
    for (const program of ["postgres", "initdb"]) {
      const binary = join(runtime.bin, program);
      expect(await printed("ldd", [binary], runtime.env)).to.not.include("not found");
      expect(await printed(binary, ["--version"], runtime.env)).to.equal(
        `${program} (PostgreSQL) ${upstream} (Debian ${runtime.version})\n`,
      );
    }
  });

  it("fetches the Kafka jars and compiles its launcher once each, and the broker's main class answers", async () => {
    const runtime = await onceForAll(() => ensureKafkaRuntime({ ...options, javaBin: undefined }), 2);
    const version = await printed(runtime.java, [
      "-cp",
      runtime.classpath,
      "KafkaLauncher",
      "kafka.Kafka",
      "--version",
    ]);
    expect(version).to.include(runtime.version);
  });

  it("unpacks Debian's ClickHouse once, and the server loads with every library it links", async () => {
    const runtime = await onceForAll(() => ensureClickHouseRuntime(options));
    expect(runtime.version).to.match(/^18\.16\./);
    expect(await printed("ldd", [runtime.binary], runtime.env)).to.not.include("not found");
    // 18.16 has no version flag: its refusal of one shows that the binary starts.
    const refusal = await run(runtime.binary, ["--version"], {
      env: { ...process.env, ...runtime.env },
    }).then(
      () => ({ stderr: "exited 0" }),
      (error: unknown) => error as { stderr?: string },
    );
    expect(refusal.stderr).to.equal("Unknown option specified: version\n");
  });

  it("unpacks Debian's Chromium once, and its real binary loads and reports the Debian version", async () => {
    const chromium = await onceForAll(() => ensureChromium(options));
    expect(await printed("ldd", [chromium.executable], chromium.env)).to.not.include("not found");
    // The package "156.0.8078.108-1~deb12u1" prints "Chromium 156.0.8078.108".
    const version = await printed(chromium.executable, ["--version"], chromium.env);
    expect(version).to.match(/^Chromium 1\d\d\./);
    expect(version).to.include(`Chromium ${chromium.version.split("-")[0]!} `);
  });

  it("fetches Envoy once, and it runs", async () => {
    const envoy = await onceForAll(() => ensureEnvoy(options));
    expect(await printed(envoy, ["--version"])).to.include(`/${envoyVersion}/`);
  });

  it("builds Jaeger once, and it runs", async () => {
    const jaeger = await onceForAll(() => ensureJaeger(options));
    expect(await printed(jaeger, ["version"])).to.include((await jaegerVersion()).slice(1));
  });

  it("builds helm once, and it reports its version", async () => {
    const helm = await onceForAll(() => ensureHelm(options));
    expect(await printed(helm, ["version", "--short"])).to.include(kubeVersions.helm);
  });

  it("builds kubeconform and converts the schemas once each, and it validates with them", async () => {
    const kubeconform = await onceForAll(() => ensureKubeconform(options), 2);
    expect(await printed(kubeconform.binary, ["-v"])).to.include(kubeVersions.kubeconform);
    const manifest = join(root, "config-map.yaml");
    await writeFile(manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sample\ndata:\n  a: b\n");
    expect(await printed(kubeconform.binary, [...kubeconform.args, manifest])).to.include("Valid: 1");
    await writeFile(manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sample\ndatta:\n  a: b\n");
    const refused = await run(kubeconform.binary, [...kubeconform.args, manifest]).then(
      () => "accepted",
      (error: unknown) => String((error as { stdout?: string }).stdout),
    );
    expect(refused).to.include("Invalid: 1");
  });

  it("installs Schemathesis and the OpenAPI validator once, and both run", async () => {
    const tools = await onceForAll(() => ensureApiTestTools(options));
    const [schemathesis, ...args] = tools.schemathesis;
    expect(await printed(schemathesis, [...args, "--version"])).to.match(/^schemathesis, version 4\./);
    const [validator, ...validatorArgs] = tools.openapiSpecValidator;
    expect(await printed(validator, [...validatorArgs, "--help"])).to.include("openapi-spec-validator");
  });

  it("builds grpcurl once, and it reports its version", async () => {
    const grpcurl = await onceForAll(() => ensureGrpcurl(options));
    expect(await printed(grpcurl, ["-version"])).to.equal(`grpcurl ${grpcurlVersion}\n`);
  });

  it("builds etcd once, and it runs", async () => {
    const etcd = await onceForAll(() => ensureEtcd(options));
    expect(await printed(etcd, ["--version"])).to.include(kubeVersions.etcd.slice(1));
  });

  it("builds the control plane's servers once, and each reports the Kubernetes version", async () => {
    const binaries = await onceForAll(() => ensureControlPlaneBinaries(options));
    for (const binary of Object.values(binaries)) {
      expect(await printed(binary, ["--version"])).to.include(kubeVersions.kubernetes);
    }
  });

  it("builds kwok once, with its stages, and it runs", async () => {
    const kwok = await onceForAll(() => ensureKwok(options));
    expect(await printed(kwok.binary, ["--version"])).to.include(kubeVersions.kwok);
    expect(await readFile(kwok.stages, "utf8")).to.include("kind: Stage");
  });

  it("builds skaffold once, with its schema, and it runs", async () => {
    const skaffold = await onceForAll(() => ensureSkaffold(options));
    expect(await printed(skaffold.binary, ["version"])).to.include(kubeVersions.skaffold);
    expect(JSON.parse(await readFile(skaffold.schema, "utf8"))).to.have.property("$schema");
  });

  it("installs Node.js once for several processes, and it is the version of .node-version", async () => {
    const script = join(import.meta.dirname, "ensure-node.sh");
    const outcomes = await inProcesses(script, [], { XDG_CACHE_HOME: root });
    expect(outcomes.map((outcome) => outcome.code)).to.deep.equal(Array<number>(callers).fill(0));
    expect(outcomes.filter((outcome) => outcome.stderr.includes("installing Node.js"))).to.have.length(1);
    const bins = new Set(outcomes.map((outcome) => outcome.stdout));
    expect(bins.size).to.equal(1);
    const wanted = (await readFile(join(import.meta.dirname, "..", "..", ".node-version"), "utf8")).trim();
    expect(await printed(join([...bins][0]!, "node"), ["--version"])).to.equal(`v${wanted}\n`);
  });

  it("generates the code of proto/ once for several processes that find it stale", async () => {
    await rm(join(repoRoot, "services", "runtime", "gen", ".fingerprint"));
    const outcomes = await inProcesses(process.execPath, [
      "--import",
      "tsx",
      join(repoRoot, "scripts", "generate.ts"),
      "--if-stale",
    ]);
    expect(outcomes.map((outcome) => outcome.code)).to.deep.equal(Array<number>(callers).fill(0));
    expect(outcomes.filter((outcome) => outcome.stdout.startsWith("generated "))).to.have.length(1);
    const fingerprint = await readFile(join(repoRoot, "services", "runtime", "gen", ".fingerprint"), "utf8");
    expect(fingerprint).to.match(/^[0-9a-f]{64}$/);
  });
});

const repoRoot = join(import.meta.dirname, "..", "..");

interface ProcessOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` in several processes at once. */
function inProcesses(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ProcessOutcome[]> {
  return Promise.all(
    Array.from(
      { length: callers },
      () =>
        new Promise<ProcessOutcome>((resolve) => {
          const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env } });
          let stdout = "";
          let stderr = "";
          child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
          child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
          child.once("close", (code) => resolve({ code, stdout: stdout.trim(), stderr }));
        }),
    ),
  );
}

/**
 * A real Envoy in front of given upstreams, for tests: renders the edge's configuration (the
 * same generator as `npm run envoy:config`) and its secret files into a temporary directory,
 * starts Envoy on free loopback ports, and waits until it serves.
 *
 * Ports: the listener and the admin interface bind port 0; Envoy writes the admin address to a
 * file, and the admin API tells which port the listener got. No free-port guessing, no race.
 * Hot restart is disabled, so instances never share shared memory with each other.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDescriptorSet, loadContract } from "../../scripts/codegen/contract-descriptors.js";
import { renderEnvoyYaml } from "./envoy-config.js";
import type { EnvoyCors } from "./cors.js";
import { siteDeployment, type HostPort } from "./envoy-options.js";
import { writeEnvoySecrets, type EnvoySecrets } from "./envoy-secrets.js";
import type { OtlpExport } from "./tracing.js";
import { ensureEnvoy } from "../../scripts/infra/envoy.js";
import { runWhileStdinOpen, superviseChild, waitUntil } from "../../scripts/infra/processes.js";

const repoRoot = join(import.meta.dirname, "..", "..");
const startTimeoutMs = 30_000;
const stopGraceMs = 5_000;
/** The launcher's own grace period, for when the starter is gone and cannot send SIGKILL. */
const launcherGraceSeconds = 3;

export interface EnvoyProcessOptions {
  /** Deployment name (`auth`, `user`, ...) → its replicas' gRPC addresses; only these are routed. */
  readonly upstreams: ReadonlyMap<string, readonly HostPort[]>;
  readonly secrets: EnvoySecrets;
  /** The REST listener's port; 0 (the default) lets Envoy pick one. */
  readonly port?: number;
  /** Worker threads: 1 by default (tests are not a load, and the machine is shared). */
  readonly concurrency?: number;
  /** Where the configuration, secrets and descriptor go; a temporary one (removed on stop) if unset. */
  readonly dir?: string;
  /** Trace every request into this OTLP/HTTP collector (tracing.ts); no tracing when unset. */
  readonly otlp?: OtlpExport | undefined;
  /** Browser apps on other origins allowed to call the API (cors.ts); none when unset. */
  readonly cors?: EnvoyCors | undefined;
}

export interface EnvoyProcess {
  /** The REST edge, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl: string;
  readonly adminUrl: string;
  /**
   * Why Envoy exited if it did so before `stop()` (with the tail of its log), else undefined.
   * A test run checks this after its suites: an edge that died mid-run is a failure of its own.
   */
  unexpectedExit(): string | undefined;
  stop(): Promise<void>;
}

/** `http://host:port` → the upstream address of a deployment. */
export function hostPortOf(url: string): HostPort {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

async function fetchText(url: string): Promise<{ status: number; text: string } | undefined> {
  try {
    const response = await fetch(url);
    return { status: response.status, text: await response.text() };
  } catch {
    return undefined;
  }
}

interface ListenerStatus {
  readonly name: string;
  readonly local_address?: { readonly socket_address?: { readonly port_value?: number } };
}

export async function startEnvoyProcess(options: EnvoyProcessOptions): Promise<EnvoyProcess> {
  const binary = await ensureEnvoy();
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "commerce-envoy-")));
  await mkdir(dir, { recursive: true });
  const contract = loadContract(await buildDescriptorSet(repoRoot));
  const descriptorPath = join(dir, "contract.binpb");
  await writeFile(descriptorPath, contract.descriptorSet);
  const secretFiles = await writeEnvoySecrets(
    join(dir, "secrets"),
    options.secrets,
    [...options.upstreams.keys()].filter((name) => name !== siteDeployment),
  );
  const configPath = join(dir, "envoy.yaml");
  await writeFile(
    configPath,
    renderEnvoyYaml(contract, {
      listen: { host: "127.0.0.1", port: options.port ?? 0 },
      admin: { host: "127.0.0.1", port: 0 },
      upstreams: options.upstreams,
      descriptorPath,
      ...secretFiles,
      otlp: options.otlp,
      cors: options.cors,
    }),
  );

  const adminAddressFile = join(dir, "admin-address");
  // Envoy writes it once its admin listens; a file left by an earlier Envoy in a kept `dir`
  // would send the readiness checks to a port nobody listens on.
  await rm(adminAddressFile, { force: true });
  // Under the launcher, whose stdin we hold: Envoy stops when this process is gone, even by a
  // crash (processes.ts, runWhileStdinOpen).
  const child = spawn(
    runWhileStdinOpen,
    [
      `--kill-after=${launcherGraceSeconds}`,
      binary,
      "-c",
      configPath,
      "--disable-hot-restart",
      "--admin-address-path",
      adminAddressFile,
      "--log-level",
      "warn",
      "--concurrency",
      String(options.concurrency ?? 1),
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let logTail = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    logTail = (logTail + chunk).slice(-4_000);
  });
  const supervised = superviseChild(child, stopGraceMs);
  let stopping = false;
  const describe = (why: string): string =>
    `Envoy ${why}${logTail === "" ? "" : `; its log ends with:\n${logTail.trimEnd()}`}`;

  const stop = async (): Promise<void> => {
    stopping = true;
    await supervised.stop();
    if (options.dir === undefined) await rm(dir, { recursive: true, force: true });
  };

  try {
    let adminUrl = "";
    const ready = await Promise.race([
      supervised.spawnFailed,
      waitUntil(
        async () => {
          if (adminUrl === "") {
            const address = await readFile(adminAddressFile, "utf8").catch(() => "");
            if (address.trim() === "") return false;
            adminUrl = `http://${address.trim()}`;
          }
          return (await fetchText(`${adminUrl}/ready`))?.status === 200;
        },
        { timeoutMs: startTimeoutMs, intervalMs: 50, abort: supervised.exited },
      ),
    ]);
    if (!ready) {
      const exit = supervised.exit();
      throw new Error(
        describe(
          exit === undefined
            ? `was not ready within ${startTimeoutMs / 1000} s`
            : `exited while starting (${exit.code ?? exit.signal ?? "unknown"})`,
        ),
      );
    }
    const listeners = await fetchText(`${adminUrl}/listeners?format=json`);
    const statuses = JSON.parse(listeners?.text ?? "{}") as { listener_statuses?: ListenerStatus[] };
    const port = statuses.listener_statuses?.find((l) => l.name === "rest")?.local_address?.socket_address
      ?.port_value;
    if (port === undefined)
      throw new Error(describe(`reported no port for its listener: ${listeners?.text ?? ""}`));

    return {
      baseUrl: `http://127.0.0.1:${port}`,
      adminUrl,
      unexpectedExit() {
        const exit = supervised.exit();
        if (exit === undefined || stopping) return undefined;
        return describe(`exited unexpectedly (${exit.code ?? exit.signal ?? "unknown"})`);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

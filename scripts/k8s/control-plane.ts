/**
 * A private Kubernetes control plane for tests: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler and kwok with fake nodes, all on loopback and free ports, with a fresh PKI and
 * an admin kubeconfig. Pods scheduled on the fake nodes become Running and Ready at once (kwok
 * plays their kubelet), so `helm install --wait` and rollouts complete; nothing runs in them.
 *
 * Every process is tied to the caller's lifetime (scripts/infra/run-while-stdin-open.sh): they
 * stop when the caller exits, even by a crash. Logs go to `<dataDir>/logs/<component>.log`.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  freePort,
  runWhileStdinOpen,
  superviseChild,
  tailOf,
  waitUntil,
  type SupervisedChild,
} from "../infra/processes.js";
import {
  apiServerArgs,
  controllerManagerArgs,
  etcdArgs,
  fakeNode,
  kwokArgs,
  schedulerArgs,
} from "./control-plane-args.js";
import { createControlPlanePki } from "./control-plane-pki.js";
import { kubeconfigFor, kubeRequest, type KubeAccess } from "./kube-api.js";
import { ensureControlPlaneTools } from "./kube-tools.js";

const startTimeoutMs = 60_000;
const stopGraceMs = 10_000;
/** The launcher's own grace period, for when this process is gone and cannot send SIGKILL. */
const launcherGraceSeconds = 5;

export interface ControlPlaneOptions {
  /** Holds the PKI, etcd's data, the kubeconfig and the logs; created if missing. */
  readonly dataDir: string;
  /** How many fake nodes (default 1); they are named `kwok-node-<n>`, zones `zone-<n>`. */
  readonly nodes?: number;
  /** Progress (tool builds, start-up time); defaults to stderr. */
  readonly log?: (message: string) => void;
}

export interface ControlPlane {
  /** An admin kubeconfig (helm's `--kubeconfig`). */
  readonly kubeconfig: string;
  /** The same identity for direct API calls (kube-api.ts). */
  readonly access: KubeAccess;
  readonly nodeNames: readonly string[];
  /** Stops every component, newest first; resolves once all have exited. Idempotent. */
  stop(): Promise<void>;
}

interface Component {
  readonly name: string;
  readonly logFile: string;
  readonly process: SupervisedChild;
}

function startComponent(name: string, binary: string, args: readonly string[], logDir: string): Component {
  const logFile = join(logDir, `${name}.log`);
  const log = openSync(logFile, "w");
  try {
    const child = spawn(runWhileStdinOpen, [`--kill-after=${launcherGraceSeconds}`, binary, ...args], {
      stdio: ["pipe", log, log],
    });
    const process = superviseChild(child, stopGraceMs);
    process.release();
    return { name, logFile, process };
  } finally {
    closeSync(log);
  }
}

/** Resolves with a failure message once any of `components` exits or cannot be spawned. */
async function firstExit(components: readonly Component[]): Promise<string> {
  return Promise.race(
    components.map(async ({ name, logFile, process }) => {
      try {
        const exit = await Promise.race([process.exited, process.spawnFailed]);
        const status = exit.code ?? exit.signal ?? "unknown";
        return `${name} exited (${status}); last lines of ${logFile}:\n${await tailOf(logFile, 20)}`;
      } catch (error) {
        return `${name} could not be started: ${String(error)}`;
      }
    }),
  );
}

async function etcdAnswers(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1_000) });
    return response.ok && ((await response.json()) as { health?: string }).health === "true";
  } catch {
    return false;
  }
}

async function answers(access: KubeAccess, path: string): Promise<boolean> {
  try {
    return (await kubeRequest(access, "GET", path, undefined, 2_000)).status === 200;
  } catch {
    return false;
  }
}

interface NodeStatus {
  readonly items?: readonly {
    readonly status?: { readonly conditions?: readonly { type: string; status: string }[] };
  }[];
}

async function nodesReady(access: KubeAccess, count: number): Promise<boolean> {
  const response = await kubeRequest(access, "GET", "/api/v1/nodes");
  const nodes = (response.body as NodeStatus | undefined)?.items ?? [];
  const ready = nodes.filter((node) =>
    node.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True"),
  );
  return ready.length === count;
}

/** Starts a control plane and resolves once its nodes are Ready and `default` can take pods. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const log = options.log ?? ((message: string) => process.stderr.write(`control plane: ${message}\n`));
  const tools = await ensureControlPlaneTools({ log });
  const started = performance.now();
  const logDir = join(options.dataDir, "logs");
  await mkdir(logDir, { recursive: true });
  const pki = await createControlPlanePki(join(options.dataDir, "pki"));
  const [etcdPort, etcdPeerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const access: KubeAccess = {
    server: `https://127.0.0.1:${apiPort}`,
    ca: await readFile(pki.caCert, "utf8"),
    cert: await readFile(pki.adminCert, "utf8"),
    key: await readFile(pki.adminKey, "utf8"),
  };
  const kubeconfig = join(options.dataDir, "kubeconfig");
  await writeFile(kubeconfig, kubeconfigFor(access, "commerce-platform-test"), { mode: 0o600 });

  const components: Component[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      for (const component of components.toReversed()) await component.process.stop();
    })();
    return stopping;
  };
  const waitFor = async (what: string, check: () => Promise<boolean>) => {
    const failure = firstExit(components);
    const ready = await waitUntil(check, { timeoutMs: startTimeoutMs, intervalMs: 100, abort: failure });
    if (!ready) {
      const exited = await Promise.race([failure, Promise.resolve(undefined)]);
      throw new Error(exited ?? `${what} was not ready after ${startTimeoutMs / 1000} s (logs in ${logDir})`);
    }
  };

  try {
    components.push(
      startComponent(
        "etcd",
        tools.etcd,
        etcdArgs(join(options.dataDir, "etcd"), etcdPort, etcdPeerPort),
        logDir,
      ),
    );
    await waitFor("etcd", () => etcdAnswers(etcdPort));
    const certDir = join(options.dataDir, "apiserver");
    components.push(
      startComponent(
        "kube-apiserver",
        tools.controlPlane["kube-apiserver"],
        apiServerArgs({ pki, port: apiPort, etcdPort, certDir }),
        logDir,
      ),
    );
    await waitFor("kube-apiserver", () => answers(access, "/readyz"));
    components.push(
      startComponent(
        "kube-controller-manager",
        tools.controlPlane["kube-controller-manager"],
        controllerManagerArgs(kubeconfig, pki),
        logDir,
      ),
      startComponent(
        "kube-scheduler",
        tools.controlPlane["kube-scheduler"],
        schedulerArgs(kubeconfig),
        logDir,
      ),
      startComponent("kwok", tools.kwok.binary, kwokArgs(kubeconfig, tools.kwok.stages), logDir),
    );
    const nodeNames = Array.from({ length: options.nodes ?? 1 }, (_, index) => `kwok-node-${index}`);
    for (const [index, name] of nodeNames.entries()) {
      const created = await kubeRequest(access, "POST", "/api/v1/nodes", fakeNode(name, `zone-${index}`));
      if (created.status !== 201) throw new Error(`creating node ${name}: ${created.status} ${created.text}`);
    }
    await waitFor("the fake nodes", () => nodesReady(access, nodeNames.length));
    // Pods need their namespace's default ServiceAccount, which the controller manager creates.
    await waitFor("the default service account", () =>
      answers(access, "/api/v1/namespaces/default/serviceaccounts/default"),
    );
    log(
      `up in ${((performance.now() - started) / 1000).toFixed(1)} s at ${access.server} (kubeconfig ${kubeconfig})`,
    );
    return { kubeconfig, access, nodeNames, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

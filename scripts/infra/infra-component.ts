/**
 * The shared instances of the local infrastructure, started and stopped by `npm run infra:up` /
 * `infra:down` and by `npm run cluster:up`, tracked by pid files (processes.ts says why).
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { launchServer, outputFileOf, type LocalServer, type ServerPorts } from "./local-server.js";
import { readLivePid, stopDetached, waitUntil } from "./processes.js";

/**
 * One piece of local test infrastructure (FerretDB, Kafka, ClickHouse, Jaeger).
 *
 * Both operations are idempotent, so the commands can be run again at any time: `up` on a
 * running, healthy component only reports how to reach it, `down` on a stopped one does nothing.
 */
export interface InfraComponent {
  readonly name: string;
  /**
   * Starts the component if it is not running and waits until it answers. Resolves to the
   * environment variables that point the tests at it (e.g. `MONGODB_URL`).
   */
  up(): Promise<Readonly<Record<string, string>>>;
  down(): Promise<void>;
}

/**
 * The shared instance of `server` on fixed `ports`, in `<stateDir>/<name>`. Its `up` adopts the
 * instance its pid file names if it answers (a concurrent `up` may still be starting it), else
 * installs and launches it detached; its `down` stops the process its pid file names.
 */
export function createInfraComponent<Installed, Port extends string>(
  server: LocalServer<Installed, Port>,
  stateDir: string,
  ports: ServerPorts<Port>,
  log: (message: string) => void,
): InfraComponent {
  const dir = join(stateDir, server.name);
  const pidFile = join(dir, `${server.name}.pid`);
  const address = server.address(ports);

  /** True when the instance its pid file names answers; throws when it runs but does not. */
  async function adoptRunning(): Promise<boolean> {
    const running = await readLivePid(pidFile, server.processSignature);
    if (running === undefined) return false;
    if (await waitUntil(() => server.answers(ports), { timeoutMs: server.startTimeoutMs, intervalMs: 100 })) {
      log(`already running (pid ${running}) at ${address}`);
      return true;
    }
    throw new Error(
      `${server.title} (pid ${running}) runs but does not answer at ${address}; ` +
        `run "npm run infra:down" and retry (log: ${outputFileOf(server, dir)})`,
    );
  }

  return {
    name: server.name,

    async up() {
      const env = server.env(ports);
      if (await adoptRunning()) return env;
      const installed = await server.install(log);
      const started = performance.now();
      const { pid } = await launchServer(server, installed, { dir, ports, pidFile });
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      log(`started (pid ${pid}) at ${address} in ${seconds} s: ${server.describe(installed, dir, ports)}`);
      return env;
    },

    down: () => stopDetached(pidFile, server.processSignature, server.stopGraceMs, log),
  };
}

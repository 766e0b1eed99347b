/**
 * A private instance of a local server for one test run (`startClickHouse`, `startFerretDb`,
 * `startJaeger`, `startKafka`), tied to the caller's lifetime.
 *
 * Ports: none of the servers reports a port it picked itself (and Kafka's controller address must
 * be known before it starts), so free ones are found first by binding port 0; if another process
 * takes one in between, the start is retried on new ones (unless the caller chose a port).
 *
 * The instance cannot outlive the caller: it stops when its stdin, which the caller holds,
 * reaches end of file, which happens when the caller exits, even on a crash. Its handles are
 * unref'd, so forgetting `stop()` does not keep the caller alive either.
 */
import { launchServer, type LaunchedServer, type LocalServer, type ServerPorts } from "./local-server.js";
import { freePorts } from "./processes.js";

/** What every `start…` of a private instance takes. */
export interface PrivateServerOptions {
  /**
   * The instance's directory (created if missing): configuration, its log, and its data under
   * `data/`. A fresh directory gives an empty server; starting again on the same directory
   * (and ports) brings back its data.
   */
  readonly dataDir: string;
  /** Install progress; defaults to stderr. */
  readonly log?: (message: string) => void;
}

/** The options of a server whose clients reach it on one port (all but Jaeger). */
export interface ClientPortOptions extends PrivateServerOptions {
  /** The clients' port on 127.0.0.1; a free one by default. */
  readonly port?: number;
}

/** A running private instance; the caller owns it and stops it. */
export interface PrivateServer<Port extends string> extends LaunchedServer {
  readonly ports: ServerPorts<Port>;
}

/** How many starts are tried when a port we picked may be taken before the server binds it. */
const attemptsOnFreePorts = 3;

/** Starts a private instance on the `given` ports and free ones for the rest. */
export async function startPrivateServer<Installed, Port extends string>(
  server: LocalServer<Installed, Port>,
  options: PrivateServerOptions,
  given?: Readonly<Partial<Record<Port, number | undefined>>>,
): Promise<PrivateServer<Port>> {
  const log = options.log ?? ((message: string) => process.stderr.write(`${server.name}: ${message}\n`));
  const installed = await server.install(log);
  // A port the caller chose that is taken stays taken: a retry helps only on ports we picked.
  const attempts = server.portNames.some((name) => given?.[name] !== undefined) ? 1 : attemptsOnFreePorts;
  for (let attempt = 1; ; attempt += 1) {
    const ports = await freePorts(server.portNames, given);
    try {
      return { ports, ...(await launchServer(server, installed, { dir: options.dataDir, ports })) };
    } catch (error) {
      const portTaken = error instanceof Error && /address already in use/i.test(error.message);
      if (!portTaken || attempt >= attempts) throw error;
      log(`a port was taken before ${server.title} bound it, retrying on other ports`);
    }
  }
}

/** A running private server that clients reach at one URL (ClickHouse, FerretDB). */
export interface UrlServer extends LaunchedServer {
  /** The value of the variable that points the tests at it (`CLICKHOUSE_URL`, `MONGODB_URL`). */
  readonly url: string;
}

/** `startPrivateServer` for a server reached at one URL, its `address`. */
export async function startUrlServer<Installed>(
  server: LocalServer<Installed, "port">,
  options: ClientPortOptions,
): Promise<UrlServer> {
  const { ports, pid, stop } = await startPrivateServer(server, options, { port: options.port });
  return { url: server.address(ports), pid, stop };
}

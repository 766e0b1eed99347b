/**
 * One ClickHouse server on loopback, declared for the shared lifecycle (local-server.ts): its
 * configuration files, its command line and its readiness probe. Shared by the `infra:up`
 * instance and the private instances of test runs (clickhouse.ts).
 *
 * Settings and why:
 *   - HTTP only, on 127.0.0.1 (`listen_host`): the adapter speaks HTTP; no native TCP,
 *     interserver, MySQL or TLS port is opened at all (each is opened only when configured);
 *   - `timezone` UTC: the server's default for DateTime values without a zone of their own (our
 *     columns name UTC anyway, ADR 0055);
 *   - every path (data, temporary files, user files, logs) under the instance's directory;
 *   - no system log tables (query_log and the like are not configured): less background work;
 *   - caches of 256 MB instead of the package's 5 and 8 GB (allocated on demand either way);
 *   - one user, `default`, without password, reachable only from 127.0.0.1.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { get } from "node:http";
import { join } from "node:path";
import { ensureClickHouseRuntime, type ClickHouseRuntime } from "./clickhouse-runtime.js";
import { whileStdinOpen, type LocalServer } from "./local-server.js";

/** Where one server keeps its files and which port it binds. */
interface ClickHouseLayout {
  /** Configuration, logs, and the data under `data/`. */
  readonly dir: string;
  /** Loopback HTTP port. */
  readonly port: number;
}

/** `http://127.0.0.1:<port>`: what `CLICKHOUSE_URL` holds. */
export function clickHouseUrlAt(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/** XML text escaping for element content (paths may hold `&` or `<`). */
function xml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The server's log file (warnings and errors); its tail explains a failed start. */
function clickHouseLogFile(dir: string): string {
  return join(dir, "clickhouse-server.log");
}

function serverConfig(layout: ClickHouseLayout): string {
  const path = (name: string): string => xml(`${join(layout.dir, name)}/`);
  return `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${xml(clickHouseLogFile(layout.dir))}</log>
    <errorlog>${xml(join(layout.dir, "clickhouse-server.err.log"))}</errorlog>
    <size>10M</size>
    <count>2</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${layout.port}</http_port>
  <path>${path("data")}</path>
  <tmp_path>${path("tmp")}</tmp_path>
  <user_files_path>${path("user_files")}</user_files_path>
  <format_schema_path>${path("format_schemas")}</format_schema_path>
  <users_config>${xml(join(layout.dir, "users.xml"))}</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
</yandex>
`;
}

const usersConfig = `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks>
        <ip>127.0.0.1</ip>
      </networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval>
        <duration>3600</duration>
        <queries>0</queries>
        <errors>0</errors>
        <result_rows>0</result_rows>
        <read_rows>0</read_rows>
        <execution_time>0</execution_time>
      </interval>
    </default>
  </quotas>
</yandex>
`;

/**
 * Writes the configuration files (again on every start: the port may differ) and creates the
 * directories. Returns the main configuration file. Existing data is kept.
 */
async function prepareClickHouse(layout: ClickHouseLayout): Promise<string> {
  await mkdir(join(layout.dir, "data"), { recursive: true });
  const config = join(layout.dir, "config.xml");
  await writeFile(config, serverConfig(layout));
  await writeFile(join(layout.dir, "users.xml"), usersConfig);
  return config;
}

/**
 * True when the server at `url` answers `GET /ping` with its "Ok.". The probe's connection is
 * closed at once (no keep-alive agent): on SIGTERM the server waits for its open connections,
 * and a pooled idle probe connection held up every `stop()` by 8 s.
 */
export function clickHouseAnswers(url: string, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(new URL("/ping", url), { agent: false, timeout: timeoutMs }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.once("end", () => {
        resolve(response.statusCode === 200 && body.startsWith("Ok."));
      });
      response.once("error", () => {
        resolve(false);
      });
    });
    request.once("timeout", () => {
      request.destroy();
    });
    request.once("error", () => {
      resolve(false);
    });
  });
}

/** ClickHouse for the shared lifecycle: the server's HTTP port is its one port. */
export const clickHouseServer: LocalServer<ClickHouseRuntime, "port"> = {
  name: "clickhouse",
  title: "ClickHouse",
  portNames: ["port"],
  // It answers within a second; more on a busy box.
  startTimeoutMs: 30_000,
  // It flushes and stops its merges on SIGTERM: well under a second when idle.
  stopGraceMs: 15_000,
  probeIntervalMs: 50,
  processSignature: "clickhouse-server",
  install: (log) => ensureClickHouseRuntime({ log }),
  async prepare(runtime, dir, { port }, withStarter) {
    const config = await prepareClickHouse({ dir, port });
    const server = { command: runtime.binary, args: [`--config-file=${config}`], env: runtime.env };
    return withStarter ? whileStdinOpen(server) : server;
  },
  address: ({ port }) => clickHouseUrlAt(port),
  answers: ({ port }) => clickHouseAnswers(clickHouseUrlAt(port), 1_000),
  ownLog: clickHouseLogFile,
  env: ({ port }) => ({ CLICKHOUSE_URL: clickHouseUrlAt(port) }),
  describe: (runtime, dir) => `ClickHouse ${runtime.version}, data in ${dir}`,
};

/**
 * What `npm start` serves a catalog read at (`npm run bench`, part 12; BENCH_ONLY=start): the
 * platform run from its TypeScript through tsx (`npm run dev`, what `npm start` ran before ADR
 * 0093) and from the compiled build (what `npm start` runs), each beside a bare Node `http`
 * server answering a fixed JSON body, the machine's ceiling. GET /api/products/{id} and the
 * filtered page, through the local edge, as the catalog bench loads them.
 *
 * The three servers run side by side, the two platforms seeded alike and warmed up, and are
 * loaded in interleaved rounds (interleaved-load.ts): every round gives each read on each
 * platform, and the bare server, one slice of BENCH_START_SLICE seconds (default 3), in an order
 * that rotates, BENCH_START_ROUNDS rounds (default 6). The load is wrk's, one thread over
 * BENCH_START_CONNECTIONS connections (default 64), from the project's cache (scripts/infra/
 * wrk.ts). Each row: throughput, its ratio to the bare server's (overall, and the
 * range over the rounds), and the CPU time per request of the process that served it. With
 * BENCH_START_PROFILES set to a folder, each platform writes a CPU profile of its whole run there
 * when it stops (`tsx/`, `compiled/`; open them in Chrome's DevTools).
 */
import { join } from "node:path";
import { jsonOk } from "../testing/loopback-json.js";
import { startPlatformProcess, type PlatformProcess } from "../testing/platform-process.js";
import { seedCatalog, type SeededCatalog } from "./catalog-bench.js";
import { startChildServer, type ChildServer } from "./child-server.js";
import { interleaved, type Contender, type Tally } from "./interleaved-load.js";
import { processCpu, warmUpSeconds, type LoadRun } from "./load.js";
import { wrkRun } from "./wrk-load.js";

export interface StartBenchOptions {
  readonly connections: number;
  /** One slice's length in seconds. */
  readonly seconds: number;
  readonly rounds: number;
  readonly admin: { readonly email: string; readonly password: string };
  /** The platform's settings for a run named `name` (its own data directory). */
  readonly platformEnv: (name: string) => NodeJS.ProcessEnv;
  /** Where each platform writes its CPU profile, if anywhere. */
  readonly profiles?: string | undefined;
}

/** The two ways the platform is started, before and after. */
const runs = [
  { name: "tsx", label: "from tsx (before)", fromSource: true },
  { name: "compiled", label: "compiled (after)", fromSource: false },
] as const;

/** The ratio to the bare server the target asks of the compiled build's read by id. */
const target = 35;

interface Started {
  readonly label: string;
  readonly platform: PlatformProcess;
  readonly catalog: SeededCatalog;
}

const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(1)}%`;

/**
 * One row: throughput, latency, CPU per request and, beside a bare server's tally, the ratio of
 * throughputs (overall, and its range over the rounds) and the ratio of CPU per request (the
 * bare server's over this one's): the throughput ratio each would reach on a core of its own,
 * which the machine's other load sways less.
 */
function row(label: string, tally: Tally, bare?: Tally): string {
  const rps = `${Math.round(tally.requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s`;
  const cpu = `CPU ${tally.cpuMicrosPerRequest.toFixed(1).padStart(5)} µs/req`;
  const faults = tally.faults === 0 ? "" : `   (${tally.faults} non-2xx or errors)`;
  const head = `  ${label.padEnd(34)} ${rps}   p99 ${tally.p99Ms.toFixed(0).padStart(4)} ms   ${cpu}`;
  if (bare === undefined) return head + faults;
  const ratios = tally.rounds.map((rps, round) => rps / (bare.rounds[round] ?? Number.NaN));
  const range = `${percent(Math.min(...ratios), 1)}–${percent(Math.max(...ratios), 1)}`;
  return (
    `${head}   ${percent(tally.requestsPerSecond, bare.requestsPerSecond).padStart(6)} of bare` +
    ` (rounds ${range}; by CPU ${percent(bare.cpuMicrosPerRequest, tally.cpuMicrosPerRequest)})${faults}`
  );
}

export async function benchStart(options: StartBenchOptions): Promise<string[]> {
  const { connections, seconds, rounds } = options;
  const load = (url: string, duration: number): Promise<LoadRun> =>
    wrkRun({ url, connections, seconds: duration });
  const platforms: PlatformProcess[] = [];
  const started: Started[] = [];
  let bare: ChildServer | undefined;
  try {
    bare = await startChildServer("bare-server.ts");
    for (const { name, label, fromSource } of runs) {
      const profile =
        options.profiles === undefined
          ? []
          : ["--cpu-prof", `--cpu-prof-dir=${join(options.profiles, name)}`];
      const platform = await startPlatformProcess(options.platformEnv(`start-${name}`), {
        fromSource,
        nodeOptions: profile,
      });
      platforms.push(platform);
      const login = await jsonOk(platform.baseUrl, "POST", "/api/auth/login", undefined, options.admin);
      const catalog = await seedCatalog(platform.baseUrl, (login as { token: string }).token);
      started.push({ label, platform, catalog });
    }
    const reads = [
      { title: "GET /api/products/{id}", url: (catalog: SeededCatalog) => catalog.byIdUrl },
      { title: "GET /api/products?category&brand", url: (catalog: SeededCatalog) => catalog.filteredUrl },
    ];
    // The bare server, then each read on each platform: what is loaded, and whose CPU counts.
    const targets = [
      { url: `${bare.url}/`, pid: bare.pid },
      ...reads.flatMap((read) =>
        started.map(({ platform, catalog }) => ({ url: read.url(catalog), pid: platform.pid })),
      ),
    ];
    // Warmed up, so that JIT compilation counts against no slice.
    for (const { url } of targets) await load(url, warmUpSeconds);
    const contenders = targets.map(({ url, pid }): Contender => ({
      slice: () => load(url, seconds),
      cpuTime: processCpu(pid),
      settle: () => Promise.resolve(),
      parts: new Map(),
    }));
    const [ceiling, ...tallies] = await interleaved(contenders, rounds, seconds);
    if (ceiling === undefined) throw new Error("no figures for the bare server");
    const byIdCompiled = tallies[runs.findIndex((run) => !run.fromSource)] as Tally;
    return [
      `npm start's catalog read: from tsx (before) and compiled (after), beside a bare Node http server`,
      `(wrk -t1, ${connections} connections; ${rounds} interleaved rounds of ${seconds} s each; CPU of the serving process):`,
      row("bare Node http, fixed JSON", ceiling),
      ...reads.flatMap((read, r) => [
        read.title,
        ...started.map(({ label }, s) => row(label, tallies[r * started.length + s] as Tally, ceiling)),
      ]),
      `  target: the compiled build's read by id at least ${target}% of bare: ${percent(byIdCompiled.requestsPerSecond, ceiling.requestsPerSecond)}`,
      `  catalog: ${started[0]?.catalog.summary ?? ""}`,
    ];
  } finally {
    for (const platform of platforms) await platform.stop();
    await bare?.stop();
  }
}

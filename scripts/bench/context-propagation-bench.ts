/**
 * What carrying a request's trace context costs in CPU: the runtime's way (on the call's
 * AbortSignal, services/runtime/src/telemetry/trace-context.ts) beside OpenTelemetry's
 * AsyncLocalStorage context manager, and tracing off, over synthetic requests as deep as the
 * platform's (context-propagation-child.ts). Measured on the project's Node (.node-version), on
 * it again without AsyncContextFrame (AsyncLocalStorage as it worked before Node 24, by a
 * promise hook), and on a reference Node when BENCH_REFERENCE_NODE names one (the machine's
 * Node 20, say). Every measurement is a process of its own; rounds interleave every setting;
 * a figure is the median of its rounds, a difference the median of each round's difference
 * against off in the same Node (ADR 0061).
 */
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { ensureNodeRuntime } from "../cache/node-runtime.js";
import { exitWithStarter } from "../infra/processes.js";
import { percentile } from "./load.js";

export interface ContextPropagationOptions {
  /** Interleaved rounds of every setting. */
  readonly rounds: number;
  /** Another `node` binary measured beside the project's, e.g. the machine's Node 20. */
  readonly referenceNode: string | undefined;
}

/** The child's shapes, each with enough requests for a few tenths of a second of CPU. */
const shapes = [
  { name: "catalog read", requests: 40_000 },
  { name: "order placed", requests: 4_000 },
];
const carriers = [
  { name: "off", label: "off" },
  { name: "signal", label: "signal" },
  { name: "async-local-storage", label: "AsyncLocalStorage" },
];
/** Requests in flight at once, as the load benches' connections. */
const concurrency = 32;

const root = join(import.meta.dirname, "..", "..");
const child = join(import.meta.dirname, "context-propagation-child.ts");

interface NodeSetting {
  readonly label: string;
  readonly binary: string;
  readonly flags: readonly string[];
}

function runChild(node: NodeSetting, args: readonly string[]): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const process = spawn(
      node.binary,
      [...node.flags, ...exitWithStarter, "--import", "tsx", child, ...args],
      { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
    );
    let output = "";
    process.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    process.once("error", reject);
    process.once("exit", (code) => {
      const last = output.trim().split("\n").at(-1) ?? "";
      if (code === 0) resolve(JSON.parse(last) as Record<string, number>);
      else reject(new Error(`${node.label} ${args.join(" ")} exited with ${code}: ${output}`));
    });
  });
}

const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const signed = (value: number): string => `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;

export async function benchContextPropagation(options: ContextPropagationOptions): Promise<string[]> {
  const project = await ensureNodeRuntime();
  const versionOf = (binary: string): string =>
    execFileSync(binary, ["--version"], { encoding: "utf8" }).trim().slice(1);
  const nodes: NodeSetting[] = [
    { label: `Node ${versionOf(project)}`, binary: project, flags: [] },
    {
      label: `Node ${versionOf(project)} --no-async-context-frame`,
      binary: project,
      flags: ["--no-async-context-frame"],
    },
    ...(options.referenceNode === undefined
      ? []
      : [{ label: `Node ${versionOf(options.referenceNode)}`, binary: options.referenceNode, flags: [] }]),
  ];
  const counts: string[] = [];
  for (const shape of shapes) {
    const { sites = 0, promisesPerRequest = 0 } = await runChild(nodes[0] as NodeSetting, [
      "count",
      shape.name,
      "2000",
      String(concurrency),
    ]);
    counts.push(`${shape.name}: ${sites} span sites, ${promisesPerRequest.toFixed(0)} promises`);
  }
  const figures = new Map<string, number[]>();
  const key = (node: NodeSetting, shape: string, carrier: string): string =>
    `${node.label}|${shape}|${carrier}`;
  for (let round = 0; round < options.rounds; round++) {
    for (const node of nodes) {
      for (const shape of shapes) {
        for (const carrier of carriers) {
          const { cpuMicrosPerRequest = NaN } = await runChild(node, [
            carrier.name,
            shape.name,
            String(shape.requests),
            String(concurrency),
          ]);
          const series = figures.get(key(node, shape.name, carrier.name)) ?? [];
          series.push(cpuMicrosPerRequest);
          figures.set(key(node, shape.name, carrier.name), series);
        }
      }
    }
  }
  const lines = [
    `context propagation: CPU per synthetic request, median of ${options.rounds} rounds, ${concurrency} in flight, an unsampled context (${counts.join("; ")})`,
  ];
  for (const node of nodes) {
    lines.push(`  ${node.label}`);
    for (const shape of shapes) {
      const off = figures.get(key(node, shape.name, "off")) ?? [];
      const cells = carriers.map(({ name, label }) => {
        const series = figures.get(key(node, shape.name, name)) ?? [];
        const value = `${label} ${median(series).toFixed(1)} µs`;
        return name === "off"
          ? value
          : `${value} (${signed(median(series.map((v, i) => v - (off[i] ?? NaN))))})`;
      });
      lines.push(`    ${shape.name.padEnd(13)} ${cells.join(", ")}`);
    }
  }
  return lines;
}

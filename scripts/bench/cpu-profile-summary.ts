/**
 * What a V8 CPU profile (`node --cpu-prof`) says about where a process spent its time within a
 * window: self time by package or source file, and the functions that took the most. Profiles
 * cover a process's whole life; the window picks the part a bench measured (sample times and
 * `process.hrtime` read the same monotonic clock on Linux).
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A stretch of the monotonic clock, in µs (`process.hrtime.bigint() / 1000n`). */
export interface ProfileWindow {
  readonly fromMicros: number;
  readonly toMicros: number;
}

export interface ProfileSummary {
  /** Sampled time that was not idle, in µs. */
  readonly busyMicros: number;
  /** Self time by package (`mongodb`), Node's own code (`node:`), source file, or V8 (`(garbage collector)`). */
  readonly byPlace: readonly (readonly [string, number])[];
  /** Self time by function (`name place:line`). */
  readonly byFunction: readonly (readonly [string, number])[];
}

/** Where a frame's code lives, short: a package, `node:<module>`, or a path under the repository. */
function placeOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const modules = url.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + "/node_modules/".length).split("/");
    return scope?.startsWith("@") === true ? `${scope}/${name ?? ""}` : (scope ?? url);
  }
  if (url.startsWith("node:")) return url;
  const services = /\/(services\/.*|scripts\/.*)$/.exec(url);
  return services?.[1] ?? url;
}

const descending = (map: Map<string, number>, top: number): (readonly [string, number])[] =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, top);

/** Summarizes the profile in `file`, only its samples inside `window` when given. */
export function summarizeCpuProfile(file: string, window?: ProfileWindow, top = 8): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyMicros = 0;
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    at += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (window !== undefined && (at < window.fromMicros || at > window.toMicros)) continue;
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === "(idle)") continue;
    busyMicros += weight;
    const place = placeOf(frame.url, frame.functionName);
    byPlace.set(place, (byPlace.get(place) ?? 0) + weight);
    const name = `${frame.functionName === "" ? "(anonymous)" : frame.functionName} ${place}${frame.url === "" ? "" : `:${frame.lineNumber + 1}`}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + weight);
  }
  return { busyMicros, byPlace: descending(byPlace, top), byFunction: descending(byFunction, top) };
}

/**
 * Several deployments compared under the same load, measured in turns: every round loads each
 * of them for one slice, in an order that rotates from round to round, so that the drift of a
 * shared machine (its speed here swings by more than half within seconds) weighs on each alike
 * instead of on whichever happened to run during a slow spell. Each deployment's figures are
 * the sums over its slices; the change of a slice against the reference's slice of the same
 * round shows how steady a comparison is.
 */
import type { CpuClock, LoadRun } from "./load.js";

/** One of the compared deployments, as the interleaving sees it. */
export interface Contender {
  /** One slice of load on it, already warmed up. */
  readonly slice: () => Promise<LoadRun>;
  /** What serves it: its CPU time counts from a slice's start until it has settled. */
  readonly cpuTime: CpuClock;
  /** Until the work a slice left behind (events relayed and consumed) is done. */
  readonly settle: () => Promise<void>;
  /** The parts of what serves it, each with its own clock (a deployment's processes); may be none. */
  readonly parts: ReadonlyMap<string, CpuClock>;
}

/** A contender's figures over every slice. */
export interface Tally {
  readonly requests: number;
  readonly requestsPerSecond: number;
  /** Each round's throughput, in round order. */
  readonly rounds: readonly number[];
  readonly cpuMicrosPerRequest: number;
  /** Each of the contender's `parts`, its CPU time per request: empty when it names none. */
  readonly cpuMicrosByPart: ReadonlyMap<string, number>;
  /** The worst slice's. */
  readonly p99Ms: number;
  readonly faults: number;
}

/**
 * Runs `rounds` rounds of one `seconds`-long slice per contender: round r starts with contender
 * r (modulo their number) and goes on in turn. Returns each contender's tally, in the order given.
 */
export async function interleaved(
  contenders: readonly Contender[],
  rounds: number,
  seconds: number,
): Promise<Tally[]> {
  const slices = contenders.map(() => [] as { run: LoadRun; cpuMicros: number }[]);
  const partsSpent = contenders.map(() => new Map<string, number>());
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < contenders.length; turn++) {
      const index = (round + turn) % contenders.length;
      const contender = contenders[index] as Contender;
      const partSpent = partsSpent[index] as Map<string, number>;
      const parts = [...contender.parts];
      const before = contender.cpuTime();
      const partsBefore = parts.map(([, clock]) => clock());
      const run = await contender.slice();
      await contender.settle();
      slices[index]?.push({ run, cpuMicros: contender.cpuTime() - before });
      for (const [at, [part, clock]] of parts.entries()) {
        partSpent.set(part, (partSpent.get(part) ?? 0) + clock() - (partsBefore[at] ?? 0));
      }
    }
  }
  return slices.map((runs, index) => {
    const requests = runs.reduce((sum, { run }) => sum + run.total, 0);
    return {
      requests,
      requestsPerSecond: requests / (seconds * runs.length),
      rounds: runs.map(({ run }) => run.total / seconds),
      cpuMicrosPerRequest: runs.reduce((sum, { cpuMicros }) => sum + cpuMicros, 0) / requests,
      cpuMicrosByPart: new Map(
        [...(partsSpent[index] ?? [])].map(([part, micros]) => [part, micros / requests]),
      ),
      p99Ms: Math.max(...runs.map(({ run }) => run.p99Ms)),
      faults: runs.reduce((sum, { run }) => sum + run.non2xx + run.errors, 0),
    };
  });
}

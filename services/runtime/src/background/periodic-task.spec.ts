import { expect } from "chai";
import { setTimeout as delay } from "node:timers/promises";
import type { EventLogger } from "../events/event-logger.js";
import { eventually } from "../testing/eventually.js";
import { createPeriodicTask, type PeriodicTask, type PeriodicTaskOptions } from "./periodic-task.js";

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: object;
}

function recordingLogger(): EventLogger & { lines: Line[] } {
  const lines: Line[] = [];
  const record = (level: string) => (fields: object, message: string) =>
    lines.push({ level, message, fields });
  return { lines, info: record("info"), warn: record("warn"), error: record("error") };
}

/** A promise and the function that settles it, for a pass the test ends when it chooses. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Wraps a pass so that the test sees how many ran at once, at most, and how many ended. */
function overlapProbe(pass: () => Promise<unknown>): {
  run: () => Promise<void>;
  readonly running: number;
  readonly most: number;
  readonly passes: number;
} {
  const probe = {
    running: 0,
    most: 0,
    passes: 0,
    run: async (): Promise<void> => {
      probe.running += 1;
      probe.most = Math.max(probe.most, probe.running);
      await pass();
      probe.running -= 1;
      probe.passes += 1;
    },
  };
  return probe;
}

describe("createPeriodicTask", () => {
  let tasks: PeriodicTask[];
  let logger: ReturnType<typeof recordingLogger>;

  beforeEach(() => {
    tasks = [];
    logger = recordingLogger();
  });
  afterEach(() => Promise.all(tasks.map((task) => task.stop())));

  function task(options: Partial<PeriodicTaskOptions> & Pick<PeriodicTaskOptions, "run">): PeriodicTask {
    const created = createPeriodicTask({
      intervalMs: 60_000,
      logger,
      failureMessage: "sweep failed",
      recoveryMessage: "sweep works again",
      ...options,
    });
    tasks.push(created);
    return created;
  }

  it("runs passes one after another, never two at once, however often it is woken", async () => {
    const probe = overlapProbe(() => delay(5));
    const swept = task({ intervalMs: 1, runAtStart: true, run: probe.run });
    swept.start();
    for (let i = 0; i < 50; i++) {
      swept.wake();
      swept.start(); // a second start is a no-op, not a second loop
      await delay(1);
    }
    await eventually(() => (probe.passes >= 5 ? true : undefined), 5_000, "five passes");
    expect(probe.most).to.equal(1);
  });

  it("waits an interval before the first pass unless told to run at start", async () => {
    let passes = 0;
    task({ intervalMs: 60_000, run: () => Promise.resolve(void (passes += 1)) }).start();
    let eager = 0;
    task({ intervalMs: 60_000, runAtStart: true, run: () => Promise.resolve(void (eager += 1)) }).start();
    await eventually(() => (eager === 1 ? true : undefined), 5_000, "the eager pass");
    await delay(50);
    expect(passes).to.equal(0);
    expect(eager).to.equal(1);
  });

  it("ends the pause when woken, and runs again at once after a pass that left work", async () => {
    const outcomes: ("more" | "done")[] = ["more", "more", "done", "done"];
    let passes = 0;
    const relay = task({
      intervalMs: 60_000,
      runAtStart: true,
      run: () => Promise.resolve(outcomes[passes++] ?? "done"),
    });
    relay.start();
    // Two passes that left work and the one that finished it, with no pause between them.
    await eventually(() => (passes === 3 ? true : undefined), 5_000, "three passes");
    await delay(50);
    expect(passes).to.equal(3);
    relay.wake();
    await eventually(() => (passes === 4 ? true : undefined), 5_000, "the woken pass");
  });

  it("after a pass that found nothing waits the idle interval, unless armed or woken", async () => {
    const times: number[] = [];
    const sweeper = task({
      intervalMs: 30,
      idleIntervalMs: 60_000,
      runAtStart: true,
      run: () => {
        times.push(performance.now());
        return Promise.resolve("idle" as const);
      },
    });
    sweeper.start();
    await eventually(() => (times.length === 1 ? true : undefined), 5_000, "the first pass");
    await delay(100);
    expect(times).to.have.length(1); // idle: not after the 30 ms interval
    const armedAt = performance.now();
    sweeper.arm();
    await eventually(() => (times.length === 2 ? true : undefined), 5_000, "the armed pass");
    // Within the interval of the arm, not at once.
    expect((times[1] ?? 0) - armedAt).to.be.within(29, 1_000);
    sweeper.wake();
    await eventually(() => (times.length === 3 ? true : undefined), 5_000, "the woken pass");
  });

  it("takes an arm during a pass that ends idle as work it may have missed", async () => {
    const first = gate();
    let passes = 0;
    const sweeper = task({
      intervalMs: 20,
      idleIntervalMs: 60_000,
      runAtStart: true,
      run: async () => {
        passes += 1;
        if (passes === 1) await first.opened;
        return "idle";
      },
    });
    sweeper.start();
    await eventually(() => (passes === 1 ? true : undefined), 5_000, "the first pass");
    sweeper.arm();
    first.open();
    await eventually(() => (passes === 2 ? true : undefined), 5_000, "a pass an interval later");
    await delay(100);
    expect(passes).to.equal(2); // that one was idle with no arm: the idle interval now
  });

  it("has the next pass follow at once when woken during a pass", async () => {
    const first = gate();
    let passes = 0;
    const relay = task({
      runAtStart: true,
      run: async () => {
        passes += 1;
        if (passes === 1) await first.opened;
      },
    });
    relay.start();
    await eventually(() => (passes === 1 ? true : undefined), 5_000, "the first pass");
    relay.wake();
    first.open();
    await eventually(() => (passes === 2 ? true : undefined), 5_000, "the pass the wake asked for");
  });

  it("stop aborts the pass in flight and resolves only once that pass has ended", async () => {
    const release = gate();
    let seen: AbortSignal | undefined;
    let ended = false;
    let passes = 0;
    const sweeper = task({
      runAtStart: true,
      run: async (signal) => {
        passes += 1;
        seen = signal;
        await release.opened; // a pass that finishes its step despite the abort
        ended = true;
      },
    });
    sweeper.start();
    await eventually(() => seen, 5_000, "the pass to begin");
    let stopped = false;
    const stopping = sweeper.stop().then(() => (stopped = true));
    await delay(30);
    expect(seen?.aborted).to.equal(true);
    expect(stopped).to.equal(false);
    release.open();
    await stopping;
    expect(ended).to.equal(true);
    sweeper.wake();
    await delay(30);
    expect(passes).to.equal(1);
  });

  it("after a restart never runs a pass beside the previous loop's last one", async () => {
    const release = gate();
    const probe = overlapProbe(() => release.opened);
    const sweeper = task({ intervalMs: 1, runAtStart: true, run: probe.run });
    sweeper.start();
    await eventually(() => (probe.running === 1 ? true : undefined), 5_000, "the first pass");
    const stopping = sweeper.stop();
    sweeper.start();
    await delay(30);
    expect(probe.most).to.equal(1);
    release.open();
    await stopping;
    await eventually(() => (probe.passes >= 2 ? true : undefined), 5_000, "the restarted loop's passes");
    expect(probe.most).to.equal(1);
  });

  it("logs an outage once with its first error, keeps going, and logs the recovery", async () => {
    const failures = [new Error("store down"), new Error("still down"), new Error("still down")];
    let passes = 0;
    task({
      intervalMs: 1,
      runAtStart: true,
      run: (): Promise<void> => {
        const failure = failures[passes++];
        return failure === undefined ? Promise.resolve() : Promise.reject(failure);
      },
      failureFields: () => ({ phase: "publish" }),
    }).start();
    await eventually(() => (passes >= 5 ? true : undefined), 5_000, "passes after the outage");
    expect(logger.lines).to.deep.equal([
      { level: "error", message: "sweep failed", fields: { err: failures[0], phase: "publish" } },
      { level: "info", message: "sweep works again", fields: { failedPasses: 3 } },
    ]);
  });

  it("backs off after failures in a row, and a wake does not cut the backoff short", async () => {
    const times: number[] = [];
    const sweeper = task({
      intervalMs: 1,
      runAtStart: true,
      run: (): Promise<void> => {
        times.push(performance.now());
        return Promise.reject(new Error("down"));
      },
      failureBackoff: { initialMs: 40, maxMs: 80, jitter: "none" },
    });
    sweeper.start();
    await eventually(() => (times.length === 2 ? true : undefined), 5_000, "a second pass");
    sweeper.wake();
    await eventually(() => (times.length === 4 ? true : undefined), 5_000, "a fourth pass");
    const gaps = times.slice(1).map((time, i) => time - (times[i] ?? 0));
    // Pauses of 40, 80 and 80 ms (the cap); a timer may fire a millisecond early.
    expect(gaps[0]).to.be.at.least(39);
    expect(gaps[1]).to.be.at.least(79);
    expect(gaps[2]).to.be.at.least(79);
  });

  it("refuses an interval that is not positive, or an idle interval shorter than it", () => {
    expect(() => task({ intervalMs: 0, run: () => Promise.resolve() })).to.throw(
      RangeError,
      "intervalMs must be > 0, got 0",
    );
    expect(() => task({ intervalMs: 100, idleIntervalMs: 50, run: () => Promise.resolve() })).to.throw(
      RangeError,
      "idleIntervalMs must be >= intervalMs (100), got 50",
    );
  });
});

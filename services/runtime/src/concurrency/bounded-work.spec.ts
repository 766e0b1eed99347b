import { expect } from "chai";
import { createBoundedWork } from "./bounded-work.js";

/** A task that runs until `finish` is called, recording how many run at once. */
function gate(): { task: () => Promise<void>; finish: () => void; started: Promise<void> } {
  let finish!: () => void;
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    task: () => {
      started();
      return done;
    },
    finish,
    started: startedPromise,
  };
}

describe("createBoundedWork", () => {
  it("admits concurrency + queue callers and refuses the next until one ends", () => {
    const work = createBoundedWork({ concurrency: 2, queue: 1 });
    const admitted = [work.admit(), work.admit(), work.admit()];
    expect(admitted.every((a) => a !== undefined)).to.equal(true);
    expect(work.admit()).to.equal(undefined);
    admitted[0]?.end();
    admitted[0]?.end(); // idempotent: frees one place, not two
    expect(work.admit()).not.to.equal(undefined);
    expect(work.admit()).to.equal(undefined);
  });

  it("runs at most `concurrency` tasks at once and starts waiters in order as places free", async () => {
    const work = createBoundedWork({ concurrency: 2, queue: 2 });
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) => {
      const admission = work.admit();
      if (admission === undefined) throw new Error("not admitted");
      return admission
        .run(async () => {
          started.push(i);
          await g.task();
        })
        .finally(() => admission.end());
    });
    await Promise.all([gates[0]?.started, gates[1]?.started]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).to.deep.equal([0, 1]);
    gates[1]?.finish();
    await gates[2]?.started;
    expect(started).to.deep.equal([0, 1, 2]);
    gates[0]?.finish();
    await gates[3]?.started;
    expect(started).to.deep.equal([0, 1, 2, 3]);
    gates[2]?.finish();
    gates[3]?.finish();
    await Promise.all(runs);
    // Everything ended: all four places are free again.
    const again = [work.admit(), work.admit(), work.admit(), work.admit()];
    expect(again.every((a) => a !== undefined)).to.equal(true);
  });

  it("frees the running place when a task fails", async () => {
    const work = createBoundedWork({ concurrency: 1, queue: 0 });
    const admission = work.admit();
    if (admission === undefined) throw new Error("not admitted");
    await admission.run(() => Promise.reject(new Error("boom"))).catch(() => undefined);
    expect(await admission.run(() => Promise.resolve(7))).to.equal(7);
  });
});

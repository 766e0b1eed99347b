import { expect } from "chai";
import { createKeyedQueue } from "./keyed-queue.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("createKeyedQueue", () => {
  it("runs tasks of one key one at a time, in arrival order", async () => {
    const queue = createKeyedQueue();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const task = (name: string) => async () => {
      running += 1;
      most = Math.max(most, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const results = await Promise.all(["a", "b", "c"].map((n) => queue("k", task(n))));
    expect(results).to.deep.equal(["a", "b", "c"]);
    expect(most).to.equal(1);
    expect(log).to.deep.equal(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("runs tasks of different keys concurrently", async () => {
    const queue = createKeyedQueue();
    let running = 0;
    let most = 0;
    const task = async (): Promise<void> => {
      running += 1;
      most = Math.max(most, running);
      await tick();
      running -= 1;
    };
    await Promise.all([queue("x", task), queue("y", task), queue("z", task)]);
    expect(most).to.equal(3);
  });

  it("keeps going after a task fails, and reports the failure to its caller only", async () => {
    const queue = createKeyedQueue();
    const failed = queue("k", () => Promise.reject(new Error("boom")));
    const next = queue("k", () => Promise.resolve("fine"));
    expect(
      await failed.then(
        () => "resolved",
        (error: unknown) => (error as Error).message,
      ),
    ).to.equal("boom");
    expect(await next).to.equal("fine");
  });
});

import { expect } from "chai";
import { createBatchedLookup } from "./batched-lookup.js";

/** A load that records the keys of each call and answers when `finish` is called. */
function recordingLoad() {
  const loads: { keys: readonly string[]; signal: AbortSignal | undefined; finish(error?: Error): void }[] =
    [];
  const load = (keys: readonly string[], signal?: AbortSignal) =>
    new Promise<Map<string, string>>((resolve, reject) => {
      loads.push({
        keys,
        signal,
        finish: (error) =>
          error === undefined
            ? resolve(new Map(keys.filter((key) => key !== "none").map((key) => [key, key.toUpperCase()])))
            : reject(error),
      });
    });
  return { loads, load };
}

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("createBatchedLookup", () => {
  it("loads a key at once, joins a key to the load running it, and loads the others asked meanwhile together next, each once", async () => {
    const { loads, load } = recordingLoad();
    const lookup = createBatchedLookup(load);
    const opener = new AbortController().signal;
    const first = lookup.get("a", opener);
    const joining = lookup.get("a");
    const later = [lookup.get("b"), lookup.get("c"), lookup.get("b"), lookup.get("none")];
    await settled();
    expect(loads.map((call) => call.keys)).to.deep.equal([["a"]]);
    expect(loads[0]?.signal).to.equal(opener);
    loads[0]?.finish();
    expect([await first, await joining]).to.deep.equal(["A", "A"]);
    await settled();
    expect(loads.map((call) => call.keys)).to.deep.equal([["a"], ["b", "c", "none"]]);
    loads[1]?.finish();
    expect(await Promise.all(later)).to.deep.equal(["B", "C", "B", undefined]);
    expect(loads).to.have.length(2);
  });

  it("fails every caller of a failed load, and loads the keys asked meanwhile all the same", async () => {
    const { loads, load } = recordingLoad();
    const lookup = createBatchedLookup(load);
    const failing = [lookup.get("a"), lookup.get("a")];
    const next = lookup.get("b");
    await settled();
    loads[0]?.finish(new Error("store down"));
    for (const outcome of await Promise.allSettled(failing)) {
      expect(outcome).to.deep.include({ status: "rejected" });
      expect((outcome as PromiseRejectedResult).reason).to.have.property("message", "store down");
    }
    await settled();
    loads[1]?.finish();
    expect(await next).to.equal("B");
  });

  it("loads at most maxKeys keys at a time", async () => {
    const { loads, load } = recordingLoad();
    const lookup = createBatchedLookup(load, 2);
    const asked = ["a", "b", "c", "d"].map((key) => lookup.get(key));
    for (let n = 0; n < 3; n += 1) {
      await settled();
      loads[n]?.finish();
    }
    expect(await Promise.all(asked)).to.deep.equal(["A", "B", "C", "D"]);
    expect(loads.map((call) => call.keys)).to.deep.equal([["a"], ["b", "c"], ["d"]]);
  });
});

import { expect } from "chai";
import { getEventListeners } from "node:events";
import { underOwnSignal } from "./own-signal.js";

describe("underOwnSignal", () => {
  it("gives the work a signal of its own that aborts when the shared one does, with its reason", async () => {
    const shared = new AbortController();
    const reason = new Error("consumer stopping");
    const seen = await underOwnSignal(shared.signal, (own) => {
      expect(own).to.not.equal(shared.signal);
      expect(own.aborted).to.equal(false);
      shared.abort(reason);
      return Promise.resolve({ aborted: own.aborted, reason: own.reason as unknown });
    });
    expect(seen).to.deep.equal({ aborted: true, reason });
  });

  it("hands a settled piece of work's signal to the next one, with one listener on the shared signal", async () => {
    const shared = new AbortController();
    const owns = new Set<AbortSignal>();
    for (let record = 0; record < 100; record++) {
      await underOwnSignal(shared.signal, (own) => {
        owns.add(own);
        return Promise.resolve();
      });
    }
    expect(owns.size).to.equal(1);
    expect(getEventListeners(shared.signal, "abort")).to.have.length(1);
  });

  it("gives pieces of work that run at once a signal each, and reuses them all afterwards", async () => {
    const shared = new AbortController();
    const concurrent = async (): Promise<AbortSignal[]> => {
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const running = [1, 2, 3].map(() =>
        underOwnSignal(shared.signal, async (own) => {
          await gate;
          return own;
        }),
      );
      release();
      return Promise.all(running);
    };
    const first = await concurrent();
    expect(new Set(first).size).to.equal(3);
    const second = await concurrent();
    expect(new Set([...first, ...second]).size).to.equal(3);
    expect(getEventListeners(shared.signal, "abort")).to.have.length(3);
  });

  it("keeps a signal that work failed under for the next piece; after the shared one aborts, every piece gets an aborted one", async () => {
    const shared = new AbortController();
    let failedUnder: AbortSignal | undefined;
    await underOwnSignal(shared.signal, (own) => {
      failedUnder = own;
      return Promise.reject(new Error("handler failed"));
    }).catch(() => undefined);
    const next = await underOwnSignal(shared.signal, (own) => Promise.resolve(own));
    expect(next).to.equal(failedUnder);

    shared.abort(new Error("closing"));
    const afterAbort = await underOwnSignal(shared.signal, (own) => Promise.resolve(own));
    expect(afterAbort.aborted).to.equal(true);
    expect((afterAbort.reason as Error).message).to.equal("closing");
    const later = await underOwnSignal(shared.signal, (own) => Promise.resolve(own));
    expect(later.aborted).to.equal(true);
    expect(later).to.not.equal(afterAbort);
  });
});

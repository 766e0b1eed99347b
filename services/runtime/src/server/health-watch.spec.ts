import { expect } from "chai";
import { capturedLogger } from "../testing/captured-logger.js";
import { eventually } from "../testing/eventually.js";
import { createHealthWatch, type HealthWatch } from "./health-watch.js";

/**
 * A check that answers `results` in turn and then keeps answering the last one, recording every
 * answer; `recover()` makes it answer true from then on.
 */
function scripted(results: readonly boolean[]): {
  check: () => Promise<boolean>;
  answers: boolean[];
  recover: () => void;
} {
  const answers: boolean[] = [];
  let recovered = false;
  return {
    check: () => {
      const answer = recovered || (results[Math.min(answers.length, results.length - 1)] ?? false);
      answers.push(answer);
      return Promise.resolve(answer);
    },
    answers,
    recover: () => {
      recovered = true;
    },
  };
}

describe("createHealthWatch", () => {
  let watch: HealthWatch | undefined;
  afterEach(() => watch?.stop());

  it("turns unhealthy on one failed check when no recheck is asked for", async () => {
    const { check, answers } = scripted([true, false, true]);
    const { logger } = capturedLogger();
    watch = createHealthWatch({ name: "store", check, intervalMs: 20, logger });
    await watch.start();
    expect(watch.healthy()).to.equal(true);
    const seen: boolean[] = [];
    await eventually(() => {
      seen.push(watch?.healthy() ?? true);
      return answers.length >= 4 ? true : undefined;
    });
    expect(seen).to.include(false);
  });

  it("with recheckMs, stays healthy through one failure that the recheck does not confirm", async () => {
    const { check, answers } = scripted([true, false, true]);
    const { logger, lines } = capturedLogger();
    watch = createHealthWatch({ name: "store", check, intervalMs: 20, recheckMs: 10, logger });
    await watch.start();
    const seen: boolean[] = [];
    await eventually(() => {
      seen.push(watch?.healthy() ?? false);
      return answers.length >= 5 ? true : undefined;
    });
    expect(answers.slice(0, 3)).to.deep.equal([true, false, true]);
    expect(seen).to.not.include(false);
    // Only the first answer's line: the unconfirmed failure changed nothing.
    expect(lines.map((line) => line["msg"])).to.deep.equal(["store is reachable"]);
  });

  it("with recheckMs, turns unhealthy on two failures in a row and healthy again on one success", async () => {
    const { check, answers, recover } = scripted([true, false, false]);
    const { logger, lines } = capturedLogger();
    watch = createHealthWatch({ name: "document store", check, intervalMs: 20, recheckMs: 10, logger });
    await watch.start();
    expect(watch.healthy()).to.equal(true);
    await eventually(() => (watch?.healthy() === false ? true : undefined));
    expect(answers.slice(0, 3)).to.deep.equal([true, false, false]);
    recover();
    await eventually(() => (watch?.healthy() === true ? true : undefined));
    expect(lines.map((line) => line["msg"])).to.deep.equal([
      "document store is reachable",
      "document store is not reachable: not ready",
      "document store is reachable",
    ]);
  });
});

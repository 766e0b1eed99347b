import { expect } from "chai";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRestartingProcess, type Incident } from "./restarting-process.js";

/** A process that prints a line and exits with code 3 shortly after. */
const crashing = ["-e", 'console.log("about to fail"); setTimeout(() => process.exit(3), 50)'];
/** A process that runs until it is told to stop. */
const steady = ["-e", 'console.log("up " + process.env.GREETING); setInterval(() => {}, 1000)'];

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("startRestartingProcess", function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "restarting-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("reports every unexpected exit with its code and last output, and starts the process again", async () => {
    const incidents: Incident[] = [];
    const supervised = startRestartingProcess(
      {
        name: "flaky-1",
        command: process.execPath,
        args: crashing,
        env: {},
        logFile: join(dir, "flaky.log"),
      },
      (incident) => incidents.push(incident),
    );
    await until(() => incidents.length >= 2);
    await supervised.stop();
    expect(incidents[0]).to.include({ process: "flaky-1", exit: "exited (code 3, signal null)" });
    expect(incidents[0]?.tail).to.equal("about to fail");
    expect(incidents[1]?.process).to.equal("flaky-1");
    // Each run appended its output to the same log.
    const log = await readFile(join(dir, "flaky.log"), "utf8");
    expect(log.split("about to fail").length - 1).to.be.greaterThanOrEqual(2);
  });

  it("gives the process exactly the environment it was given, and reports nothing on a requested stop", async () => {
    const incidents: Incident[] = [];
    const supervised = startRestartingProcess(
      {
        name: "steady-1",
        command: process.execPath,
        args: steady,
        env: { GREETING: "hello" },
        logFile: join(dir, "steady.log"),
      },
      (incident) => incidents.push(incident),
    );
    await until(() => supervised.pid() !== undefined);
    let log = "";
    await until(() => {
      void readFile(join(dir, "steady.log"), "utf8").then((text) => (log = text));
      return log.includes("up hello");
    });
    await supervised.stop();
    expect(incidents).to.deep.equal([]);
  });
});

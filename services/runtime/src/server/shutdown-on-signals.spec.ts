import { expect } from "chai";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const moduleUrl = (file: string): string => pathToFileURL(join(import.meta.dirname, file)).href;

/**
 * A process that ends through `shutdownOnSignals`: prints "ready", and on a signal prints
 * "stopping", takes half a second to shut down and prints "stopped".
 */
const program = `
  import { shutdownOnSignals } from ${JSON.stringify(moduleUrl("shutdown-on-signals.ts"))};
  import { createLogger } from ${JSON.stringify(moduleUrl("../logging/logger.ts"))};
  shutdownOnSignals(createLogger("silent", "spec"), async () => {
    process.stdout.write("stopping\\n");
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.stdout.write("stopped\\n");
  });
  process.stdout.write("ready\\n");
  setInterval(() => {}, 1000);
`;

describe("shutdownOnSignals", function () {
  this.timeout(30_000);

  /** Starts the program, sends `signals` (each once the previous one began the shutdown). */
  async function stopWith(
    signals: readonly NodeJS.Signals[],
  ): Promise<{ output: string; code: number | null; signal: string | null }> {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(child, "exit");
    let output = "";
    const printed = async (line: string): Promise<void> => {
      while (!output.includes(`${line}\n`)) await once(child.stdout, "data");
    };
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    try {
      await printed("ready");
      for (const [i, signal] of signals.entries()) {
        child.kill(signal);
        if (i === 0) await printed("stopping");
      }
      const [code, signal] = (await exited) as [number | null, string | null];
      return { output, code, signal };
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }

  it("runs the shutdown on SIGTERM and exits 0 when it is done", async () => {
    expect(await stopWith(["SIGTERM"])).to.deep.equal({
      output: "ready\nstopping\nstopped\n",
      code: 0,
      signal: null,
    });
  });

  it("finishes the shutdown when SIGINT comes twice (Ctrl-C on npm start: the terminal's and npm's)", async () => {
    expect(await stopWith(["SIGINT", "SIGINT", "SIGTERM"])).to.deep.equal({
      output: "ready\nstopping\nstopped\n",
      code: 0,
      signal: null,
    });
  });
});

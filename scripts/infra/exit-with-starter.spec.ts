import { expect } from "chai";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitWithStarter, isAlive, waitUntil } from "./processes.js";

/**
 * Runs `program` (a `node -e` script) with the preload and the given stdin; what it printed and
 * how it exited. A piped stdin stays open, held by this process, until the program has exited.
 */
async function runPreloaded(
  program: string,
  stdin: "ignore" | "pipe",
): Promise<{ output: string; code: number | null; signal: string | null }> {
  const child = spawn(process.execPath, [...exitWithStarter, "-e", program], {
    stdio: [stdin, "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  // All it printed: its stdout ends only when it has exited.
  if (child.stdout !== null) await once(child.stdout, "end");
  const [code, signal] = (await exited) as [number | null, string | null];
  child.stdin?.end();
  return { output, code, signal };
}

describe("exitWithStarter: a process the scripts start ends with its starter", function () {
  this.timeout(30_000);
  let dir: string;
  /** The process under watch, killed after a test that failed to see it stop. */
  let watchedPid: number | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "exit-with-starter-"));
  });
  afterEach(async () => {
    if (watchedPid !== undefined && isAlive(watchedPid)) process.kill(watchedPid, "SIGKILL");
    watchedPid = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it("gets SIGTERM, and stops as asked to, when its starter is killed", async () => {
    const marker = join(dir, "marker");
    // The process under watch: notes the SIGTERM it gets, and otherwise runs until told.
    const watched = [
      ...exitWithStarter,
      "-e",
      `process.on("SIGTERM", () => { require("node:fs").writeFileSync(${JSON.stringify(marker)}, "stopped by SIGTERM"); process.exit(0); });
       setInterval(() => {}, 1000);`,
    ];
    // Its starter: starts it with stdin a pipe, prints its pid, and runs until killed.
    const starter = spawn(
      process.execPath,
      [
        "-e",
        `const child = require("node:child_process").spawn(process.execPath, ${JSON.stringify(watched)}, { stdio: ["pipe", "ignore", "ignore"] });
         console.log(child.pid); setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const pid = await new Promise<number>((resolve) =>
      starter.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString("utf8").trim()))),
    );
    watchedPid = pid;
    expect(isAlive(pid)).to.equal(true);

    starter.kill("SIGKILL");

    const gone = await waitUntil(() => Promise.resolve(!isAlive(pid)), { timeoutMs: 10_000, intervalMs: 20 });
    expect(gone).to.equal(true);
    expect(await readFile(marker, "utf8")).to.equal("stopped by SIGTERM");
  });

  it("changes nothing for a process whose stdin is closed from the start (a container, npm start)", async () => {
    expect(await runPreloaded('setTimeout(() => console.log("still here"), 200)', "ignore")).to.deep.equal({
      output: "still here\n",
      code: 0,
      signal: null,
    });
  });

  it("keeps nothing alive: a process that is done exits while its starter still holds stdin", async () => {
    expect(await runPreloaded('setTimeout(() => console.log("done"), 50)', "pipe")).to.deep.equal({
      output: "done\n",
      code: 0,
      signal: null,
    });
  });
});

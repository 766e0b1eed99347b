import { expect } from "chai";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureArtifact, type ArtifactRecipe } from "./cached-artifact.js";

const builder = join(import.meta.dirname, "testing", "artifact-builder.ts");

interface BuilderRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
}

/** Starts testing/artifact-builder.ts on `root`; `started` resolves when its build begins. */
function startBuilder(root: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", builder, root], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const started = new Promise<void>((resolve) => {
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.includes("building")) resolve();
    });
  });
  const done = new Promise<BuilderRun>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal, stdout: stdout.trim() }));
  });
  return { child, started, done };
}

async function buildsIn(root: string): Promise<number> {
  try {
    return (await readFile(join(root, "builds.log"), "utf8")).split("\n").filter((line) => line !== "")
      .length;
  } catch {
    return 0;
  }
}

describe("ensureArtifact", () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "artifact-spec-"));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A recipe that counts its builds and takes `ms` to fill its folder. */
  function countingRecipe(ms: number, fail = false): { recipe: ArtifactRecipe; builds: () => number } {
    let builds = 0;
    return {
      builds: () => builds,
      recipe: {
        name: "tool-1.0",
        inputs: ["flags"],
        build: async (dir) => {
          builds += 1;
          await delay(ms);
          if (fail) throw new Error("compiler crashed");
          await writeFile(join(dir, "tool"), "#!/bin/sh\n");
        },
      },
    };
  }

  it("builds once for callers in one process at the same time, and gives each the finished folder", async () => {
    const { recipe, builds } = countingRecipe(100);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => ensureArtifact(recipe, { root, log: () => undefined })),
    );
    expect(builds()).to.equal(1);
    expect(new Set(results.map((result) => result.dir)).size).to.equal(1);
    const dir = results[0]!.dir;
    expect(await readFile(join(dir, "tool"), "utf8")).to.equal("#!/bin/sh\n");
    expect((await readdir(root)).sort()).to.deep.equal([
      dir.slice(root.length + 1),
      `${dir.slice(root.length + 1)}.lock`,
    ]);
  });

  it("finds a finished artifact without building it again", async () => {
    const { recipe, builds } = countingRecipe(0);
    const first = await ensureArtifact(recipe, { root, log: () => undefined });
    const second = await ensureArtifact(recipe, { root, log: () => undefined });
    expect([first.built, second.built, builds()]).to.deep.equal([true, false, 1]);
    expect(second.dir).to.equal(first.dir);
  });

  it("names the folder after the inputs, so a changed input builds a new artifact", async () => {
    const { recipe } = countingRecipe(0);
    const first = await ensureArtifact(recipe, { root, log: () => undefined });
    const changed = await ensureArtifact(
      { ...recipe, inputs: ["other flags"] },
      { root, log: () => undefined },
    );
    expect(changed.dir).to.not.equal(first.dir);
    expect(changed.built).to.equal(true);
  });

  it("builds once for several processes at the same time, and every process gets the winner's folder", async () => {
    const runs = await Promise.all(Array.from({ length: 4 }, () => startBuilder(root).done));
    expect(runs.map((run) => run.code)).to.deep.equal([0, 0, 0, 0]);
    expect(await buildsIn(root)).to.equal(1);
    const dirs = new Set(runs.map((run) => run.stdout));
    expect(dirs.size).to.equal(1);
    expect(await readFile(join([...dirs][0]!, "payload"), "utf8")).to.equal("made");
  });

  it("shares a failed build's error with every waiting caller, leaves nothing under the final name, and builds again later", async () => {
    const failing = countingRecipe(50, true);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 3 }, () => ensureArtifact(failing.recipe, { root, log: () => undefined })),
    );
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(["rejected", "rejected", "rejected"]);
    expect(failing.builds()).to.equal(1);
    expect((await readdir(root)).filter((name) => !name.endsWith(".lock"))).to.deep.equal([]);

    const working = countingRecipe(0);
    const artifact = await ensureArtifact(working.recipe, { root, log: () => undefined });
    expect([artifact.built, working.builds()]).to.deep.equal([true, 1]);
  });

  it("lets a waiting process build when the builder is killed mid-build, and removes the dead build's scratch folder", async () => {
    const victim = startBuilder(root, { BUILD_MS: "60000" });
    await victim.started;
    const waiter = startBuilder(root, { BUILD_MS: "100" });
    await delay(300); // the waiter is blocked on the lock by now
    expect(await buildsIn(root)).to.equal(1);
    victim.child.kill("SIGKILL");
    expect((await victim.done).signal).to.equal("SIGKILL");

    const run = await waiter.done;
    expect(run.code).to.equal(0);
    expect(await buildsIn(root)).to.equal(2);
    expect(await readFile(join(run.stdout, "payload"), "utf8")).to.equal("made");
    expect((await readdir(root)).filter((name) => name.includes(".partial-"))).to.deep.equal([]);
  });

  it("replaces a folder that has no stamp (an interrupted older layout) under the final name", async () => {
    const { recipe } = countingRecipe(0);
    const { dir } = await ensureArtifact(recipe, { root, log: () => undefined });
    await rm(join(dir, "STAMP"));
    await writeFile(join(dir, "junk"), "left over");
    const again = await ensureArtifact(recipe, { root, log: () => undefined });
    expect(again.built).to.equal(true);
    expect(existsSync(join(dir, "junk"))).to.equal(false);
    expect(existsSync(join(dir, "tool"))).to.equal(true);
  });

  it("reports progress through the log it is given", async () => {
    const { recipe } = countingRecipe(0);
    const lines: string[] = [];
    await mkdir(root, { recursive: true });
    await ensureArtifact(recipe, { root, log: (line) => lines.push(line) });
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^building tool-1\.0 into /);
    expect(lines[1]).to.match(/^built tool-1\.0 in \d+\.\d s$/);
  });
});

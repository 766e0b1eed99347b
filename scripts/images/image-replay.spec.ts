import { expect } from "chai";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDockerfile } from "./dockerfile.js";
import { createImageReplay, pathInImage } from "./image-replay.js";
import type { StandInNode } from "./project-node.js";
import { startReplayedContainer } from "./replayed-container.js";

const digest = `sha256:${"0".repeat(64)}`;

describe("createImageReplay", () => {
  let scratch: string;
  /**
   * A `node` that says who it is, then stays a while under the name `node` (as a container's
   * process is found, replayed-container.ts): what prints it ran the stand-in, not this machine's.
   */
  let standIn: StandInNode;

  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), "image-replay-"));
    const binary = join(scratch, "node");
    writeFileSync(binary, '#!/bin/bash\necho "stand-in node $*"\nexec -a node sleep 1\n');
    chmodSync(binary, 0o755);
    standIn = { version: "24.21.0", binary };
  });

  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  const replayOf = (dockerfile: string) =>
    createImageReplay({
      dockerfile: parseDockerfile(dockerfile),
      contextDir: scratch,
      scratchDir: join(scratch, "stages"),
      node: standIn,
    });

  it("refuses a base image that pins another Node than the project's, before running anything", async () => {
    const replay = replayOf(`FROM node:20.20.2-bookworm-slim@${digest} AS base\nRUN touch ran\n`);
    const refused = await replay.replay("base").then(
      () => "replayed",
      (error: unknown) => (error as Error).message,
    );
    expect(refused).to.equal(
      "line 1: the image pins Node 20.20.2, but the project's Node (.node-version), which stands in for it, is 24.21.0",
    );
    expect(existsSync(join(scratch, "stages", "0-base", "ran"))).to.equal(false);
  });

  it("refuses a base image pinned by tag alone", async () => {
    const replay = replayOf("FROM node:24.21.0-bookworm-slim AS base\n");
    const refused = await replay.replay("base").then(
      () => "replayed",
      (error: unknown) => (error as Error).message,
    );
    expect(refused).to.match(/^line 1: node:24.21.0-bookworm-slim cannot be stood in for/);
  });

  it("runs every RUN and the image's process on the stand-in's node, not this machine's", async () => {
    const replay = replayOf(
      [
        `FROM node:24.21.0-bookworm-slim@${digest} AS base`,
        "WORKDIR /work",
        "RUN node --version > version.txt",
        'ENTRYPOINT ["node", "main.js"]',
      ].join("\n"),
    );
    const image = await replay.replay("base");
    expect(readFileSync(pathInImage(image.rootfs, "/work/version.txt"), "utf8")).to.equal(
      "stand-in node --version\n",
    );
    const container = await startReplayedContainer({ image, env: {}, volumes: {} });
    expect(await container.exited).to.deep.equal({ code: 0, signal: null });
    expect(container.output()).to.equal("stand-in node main.js\n");
  });
});

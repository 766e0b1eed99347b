import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, workspaceFolders } from "../build.js";
import { listBuildContext } from "./build-context.js";
import { expandVariables, parseDockerfile } from "./dockerfile.js";

describe("parseDockerfile", () => {
  it("reads stages, continued lines, quoted labels, exec-form entry points and cache mounts", () => {
    const { stages, globalArgs } = parseDockerfile(
      [
        "# syntax=docker/dockerfile:1",
        "ARG BASE=node:1",
        "FROM ${BASE} AS build",
        "RUN --mount=type=cache,target=/root/.npm npm ci \\",
        "    # a comment inside the continuation",
        "    && npm run build",
        "FROM build AS app",
        'LABEL a="one two" b=three',
        'ENTRYPOINT ["node", "main.js"]',
      ].join("\n"),
    );
    expect(globalArgs.get("BASE")).to.equal("node:1");
    expect(stages.map((s) => [s.name, s.from])).to.deep.equal([
      ["build", "${BASE}"],
      ["app", "build"],
    ]);
    expect(stages[0]?.instructions[0]).to.deep.include({
      kind: "RUN",
      command: "npm ci      && npm run build",
      cacheTargets: ["/root/.npm"],
    });
    expect(stages[1]?.instructions).to.deep.equal([
      {
        line: 8,
        kind: "LABEL",
        pairs: [
          ["a", "one two"],
          ["b", "three"],
        ],
      },
      { line: 9, kind: "ENTRYPOINT", argv: ["node", "main.js"] },
    ]);
  });

  it("refuses, with its line, what the replay does not perform", () => {
    const refused = (line: string): string => {
      try {
        parseDockerfile(`FROM node:1 AS base\n${line}`);
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refused('HEALTHCHECK CMD ["true"]')).to.match(/^line 2: HEALTHCHECK is not replayed/);
    expect(refused("ADD https://example.com/x /x")).to.match(/^line 2: ADD is not replayed/);
    expect(refused("COPY --chmod=755 a b")).to.match(/^line 2: COPY --chmod is not replayed/);
    expect(refused("RUN --mount=type=secret,id=npmrc npm ci")).to.match(/only --mount=type=cache/);
    expect(refused("ENTRYPOINT node main.js")).to.match(/exec form/);
    expect(refused("ENV KEY value")).to.match(/key=value/);
    expect(() => parseDockerfile("FROM node:1\n")).to.throw(/FROM <image> AS <name>/);
  });
});

describe("expandVariables", () => {
  it("substitutes $NAME and ${NAME}, unset as empty, and refuses modifiers", () => {
    const values = new Map([["VERSION", "0.1.0"]]);
    expect(expandVariables("v${VERSION}-$VERSION-${UNSET}", values, 1)).to.equal("v0.1.0-0.1.0-");
    expect(() => expandVariables("${VERSION:-1}", values, 3)).to.throw(/^line 3: .*modifier/);
  });
});

describe("the repository's Dockerfile", () => {
  it("copies every workspace's package.json, from the build context, before its first npm ci (which refuses a lockfile naming a workspace it cannot find)", () => {
    const { stages } = parseDockerfile(readFileSync(join(repoRoot, "Dockerfile"), "utf8"));
    const instructions = stages.flatMap((stage) => stage.instructions);
    const install = instructions.findIndex((i) => i.kind === "RUN" && /\bnpm ci\b/.test(i.command));
    const copied = instructions
      .slice(0, install)
      .flatMap((i) => (i.kind === "COPY" && i.from === undefined ? i.sources : []));
    const manifests = workspaceFolders().map((folder) => `${folder}/package.json`);
    expect(install).to.be.greaterThan(0);
    expect(copied).to.include.members(["package.json", "package-lock.json", ...manifests]);
    const context = listBuildContext(repoRoot).map((entry) => entry.path);
    expect(context).to.include.members(manifests);
  });
});

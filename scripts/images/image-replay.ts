/**
 * Builds a target of our Dockerfile without Docker, by doing what each instruction does
 * (ADR 0082): every stage's root filesystem is a folder, image
 * paths are mapped into it, COPY copies from the build context (as `.dockerignore` leaves it)
 * or from an earlier stage's folder, RUN runs its shell command in the mapped WORKDIR with the
 * stage's ENV and ARGs, and the rest is recorded as the image's configuration. A stage is
 * replayed once per replay, however many targets build on it.
 *
 * The official Node image cannot be pulled here: the project's Node (.node-version, given as
 * `node`; project-node.ts) stands in for it, whatever Node runs the replay, and only when the
 * pinned tag names that very version (otherwise the replay refuses). Its `node` comes first on
 * the PATH of every RUN (so npm and the build run on it) and of every container started from
 * the image (replayed-container.ts), as /usr/local/bin/node does in the image. Its root starts
 * empty (nothing of the image's Debian is used by our instructions: RUN may not name absolute
 * paths, since it runs on this machine), with the image's own configuration: ENTRYPOINT
 * docker-entrypoint.sh, CMD node, user root.
 */
import { spawn, execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { dirname, join, posix } from "node:path";
import { listBuildContext, type ContextEntry } from "./build-context.js";
import {
  DockerfileError,
  expandVariables,
  type Dockerfile,
  type Instruction,
  type Stage,
} from "./dockerfile.js";
import type { StandInNode } from "./project-node.js";

/** What `docker image inspect` would show of an image's configuration. */
export interface ImageConfig {
  readonly env: ReadonlyMap<string, string>;
  readonly workdir: string;
  /** `uid[:gid]`, numeric. */
  readonly user: string;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly labels: ReadonlyMap<string, string>;
  readonly exposed: readonly string[];
  readonly stopSignal: string | undefined;
}

export interface ReplayedImage extends ImageConfig {
  readonly target: string;
  /** The folder that holds the image's root filesystem. */
  readonly rootfs: string;
  /** The folder whose `node` stands in for the base image's (/usr/local/bin/node). */
  readonly nodeBin: string;
}

export interface ImageReplayOptions {
  readonly dockerfile: Dockerfile;
  /** The folder `docker build` is given (its `.dockerignore` applies). */
  readonly contextDir: string;
  /** Stage folders go here, and the stand-in's `node`. */
  readonly scratchDir: string;
  /** The Node that stands in for the official Node image: the project's (project-node.ts). */
  readonly node: StandInNode;
  /** `--build-arg` values. */
  readonly buildArgs?: Readonly<Record<string, string>>;
  /** Progress (one line per slow instruction). */
  readonly log?: (line: string) => void;
}

export interface ImageReplay {
  replay(target: string): Promise<ReplayedImage>;
}

/** The Node image the stand-in accepts: the official slim Debian 12 image, by version and digest. */
const nodeImage = /^node:(\d+\.\d+\.\d+)-bookworm-slim@sha256:[0-9a-f]{64}$/;

/** The Node version a base image reference pins, or undefined when it is not the official image. */
export function pinnedNodeVersion(reference: string): string | undefined {
  return nodeImage.exec(reference)?.[1];
}

function standInForBaseImage(reference: string, line: number, node: StandInNode): ImageConfig {
  const version = pinnedNodeVersion(reference);
  if (version === undefined) {
    throw new DockerfileError(
      `line ${line}: ${reference} cannot be stood in for: only node:<version>-bookworm-slim@sha256:<digest>`,
    );
  }
  if (version !== node.version) {
    throw new DockerfileError(
      `line ${line}: the image pins Node ${version}, but the project's Node (.node-version), which stands in for it, is ${node.version}`,
    );
  }
  return {
    env: new Map([["NODE_VERSION", version]]),
    workdir: "/",
    user: "0",
    entrypoint: ["docker-entrypoint.sh"],
    cmd: ["node"],
    labels: new Map(),
    exposed: [],
    stopSignal: undefined,
  };
}

/** The host path of an absolute image path within a root filesystem folder. */
export function pathInImage(rootfs: string, imagePath: string): string {
  return join(rootfs, posix.resolve("/", imagePath));
}

/** This machine's settings for reaching the registry, which a Docker build gets from its daemon. */
const registryAccess = [
  "NODE_EXTRA_CA_CERTS",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
];

interface ReplayedStage {
  readonly rootfs: string;
  readonly config: ImageConfig;
}

/**
 * Puts the stand-in's `node` alone in a folder of the replay, for the PATH of RUN and of the
 * containers: a folder the image's user can reach (the project's cache may sit in a home folder
 * closed to it), holding no other program of the stand-in's installation. A hard link, or a copy
 * across file systems.
 */
function placeStandIn(node: StandInNode, folder: string): void {
  mkdirSync(folder, { recursive: true });
  const target = join(folder, "node");
  rmSync(target, { force: true });
  try {
    linkSync(node.binary, target);
  } catch {
    copyFileSync(node.binary, target);
    chmodSync(target, 0o755);
  }
}

export function createImageReplay(options: ImageReplayOptions): ImageReplay {
  const { dockerfile } = options;
  const log = options.log ?? (() => undefined);
  const replayed = new Map<string, Promise<ReplayedStage>>();
  let context: ContextEntry[] | undefined;
  const nodeBin = join(options.scratchDir, "node-stand-in");
  let nodePlaced = false;

  const stageNamed = (name: string): Stage | undefined => dockerfile.stages.find((s) => s.name === name);

  function replayStage(stage: Stage): Promise<ReplayedStage> {
    let result = replayed.get(stage.name);
    if (result === undefined) {
      result = run(stage);
      replayed.set(stage.name, result);
    }
    return result;
  }

  async function run(stage: Stage): Promise<ReplayedStage> {
    const globals = new Map<string, string>();
    for (const [name, value] of dockerfile.globalArgs) {
      const given = options.buildArgs?.[name] ?? value;
      if (given !== undefined) globals.set(name, given);
    }
    const from = expandVariables(stage.from, globals, stage.line);
    const index = dockerfile.stages.indexOf(stage);
    const parent = dockerfile.stages.slice(0, index).find((s) => s.name === from);
    const base = parent === undefined ? undefined : await replayStage(parent);
    let config = base?.config ?? standInForBaseImage(from, stage.line, options.node);
    if (base === undefined && !nodePlaced) {
      placeStandIn(options.node, nodeBin);
      nodePlaced = true;
    }
    const rootfs = join(options.scratchDir, `${index}-${stage.name}`);
    // A stage shares its parent's folder until it changes a file: the targets only add settings.
    let ownRoot = base === undefined;
    let root = base?.rootfs ?? rootfs;
    if (ownRoot) mkdirSync(rootfs, { recursive: true });
    const writable = (): string => {
      if (!ownRoot) {
        execFileSync("cp", ["-a", `${root}/.`, `${rootfs}/`]);
        ownRoot = true;
        root = rootfs;
      }
      return root;
    };

    const args = new Map<string, string>();
    let cmdFromParent = true; // the parent's, or the base image's
    for (const instruction of stage.instructions) {
      if (instruction.kind === "COPY" && instruction.from !== undefined) {
        // The stage copied from is replayed first, so that this instruction's time is its own.
        const source = stageNamed(expandVariables(instruction.from, args, instruction.line));
        if (source !== undefined && dockerfile.stages.indexOf(source) < index) await replayStage(source);
      }
      const values = new Map([...args, ...config.env]);
      const expand = (text: string): string => expandVariables(text, values, instruction.line);
      const started = Date.now();
      switch (instruction.kind) {
        case "ARG": {
          const value =
            options.buildArgs?.[instruction.name] ?? instruction.value ?? globals.get(instruction.name);
          if (value !== undefined) args.set(instruction.name, expand(value));
          break;
        }
        case "ENV":
          config = {
            ...config,
            env: new Map([...config.env, ...instruction.pairs.map(([k, v]) => [k, expand(v)] as const)]),
          };
          break;
        case "LABEL":
          config = {
            ...config,
            labels: new Map([
              ...config.labels,
              ...instruction.pairs.map(([k, v]) => [expand(k), expand(v)] as const),
            ]),
          };
          break;
        case "WORKDIR": {
          const workdir = posix.resolve(config.workdir, expand(instruction.path));
          mkdirSync(pathInImage(writable(), workdir), { recursive: true });
          config = { ...config, workdir };
          break;
        }
        case "COPY":
          context ??= listBuildContext(options.contextDir);
          await copy(instruction, expand, config.workdir, writable(), context);
          break;
        case "RUN":
          if (config.user.split(":")[0] !== "0") {
            throw new DockerfileError(
              `line ${instruction.line}: RUN as a user other than root is not replayed`,
            );
          }
          if (/(^|[\s=:'"(])\//.test(instruction.command)) {
            throw new DockerfileError(
              `line ${instruction.line}: RUN runs on this machine in the replay, so it may name only paths relative to WORKDIR`,
            );
          }
          await runShell(
            instruction.command,
            pathInImage(writable(), config.workdir),
            {
              ...Object.fromEntries(args),
              ...Object.fromEntries(config.env),
            },
            instruction.line,
          );
          break;
        case "USER": {
          const user = expand(instruction.user);
          if (!/^\d+(:\d+)?$/.test(user)) {
            throw new DockerfileError(
              `line ${instruction.line}: USER must be numeric (uid[:gid]), got ${user}`,
            );
          }
          config = { ...config, user };
          break;
        }
        case "ENTRYPOINT":
          // Docker: an ENTRYPOINT clears the CMD a parent image set.
          config = { ...config, entrypoint: instruction.argv, cmd: cmdFromParent ? [] : config.cmd };
          break;
        case "CMD":
          config = { ...config, cmd: instruction.argv };
          cmdFromParent = false;
          break;
        case "EXPOSE":
          config = { ...config, exposed: [...config.exposed, ...instruction.ports.map(expand)] };
          break;
        case "STOPSIGNAL":
          config = { ...config, stopSignal: expand(instruction.signal) };
          break;
      }
      const seconds = (Date.now() - started) / 1000;
      if (seconds >= 1)
        log(`${stage.name}: line ${instruction.line} ${instruction.kind} took ${seconds.toFixed(1)} s`);
    }
    return { rootfs: root, config };

    async function copy(
      instruction: Extract<Instruction, { kind: "COPY" }>,
      expand: (text: string) => string,
      workdir: string,
      root: string,
      entries: readonly ContextEntry[],
    ): Promise<void> {
      const destination = posix.resolve(workdir, expand(instruction.destination));
      const intoFolder = instruction.destination.endsWith("/") || instruction.sources.length > 1;
      const owner =
        instruction.chown === undefined ? undefined : ownerOf(expand(instruction.chown), instruction.line);
      const sourceStage = instruction.from === undefined ? undefined : stageNamed(expand(instruction.from));
      if (
        instruction.from !== undefined &&
        (sourceStage === undefined || dockerfile.stages.indexOf(sourceStage) >= index)
      ) {
        throw new DockerfileError(
          `line ${instruction.line}: --from=${instruction.from} names no earlier stage`,
        );
      }
      const sourceRoot = sourceStage === undefined ? undefined : (await replayStage(sourceStage)).rootfs;
      for (const raw of instruction.sources.map(expand)) {
        if (/[*?[]/.test(raw))
          throw new DockerfileError(`line ${instruction.line}: COPY wildcards are not replayed`);
        const files: { from: string; relative: string | undefined }[] = [];
        if (sourceRoot === undefined) {
          const source = posix.normalize(raw).replace(/^\.?\/+|\/+$/g, "") || ".";
          if (source.startsWith(".."))
            throw new DockerfileError(`line ${instruction.line}: ${raw} is outside the context`);
          for (const entry of entries) {
            if (entry.path === source)
              files.push({ from: join(options.contextDir, entry.path), relative: undefined });
            else if (source === "." || entry.path.startsWith(`${source}/`)) {
              files.push({
                from: join(options.contextDir, entry.path),
                relative: source === "." ? entry.path : entry.path.slice(source.length + 1),
              });
            }
          }
          if (files.length === 0) {
            throw new DockerfileError(
              `line ${instruction.line}: ${raw} is not in the build context (.dockerignore?)`,
            );
          }
        } else {
          const source = pathInImage(sourceRoot, raw);
          if (lstatSync(source).isDirectory()) {
            for (const relative of treeUnder(source)) files.push({ from: join(source, relative), relative });
          } else files.push({ from: source, relative: undefined });
        }
        for (const { from, relative } of files) {
          const target =
            relative !== undefined
              ? posix.join(destination, relative)
              : intoFolder
                ? posix.join(destination, posix.basename(raw))
                : destination;
          copyEntry(from, pathInImage(root, target), owner);
        }
      }
    }
  }

  function runShell(command: string, cwd: string, env: Record<string, string>, line: number): Promise<void> {
    const machine = Object.fromEntries(
      ["HOME", ...registryAccess].flatMap((name) => {
        const value = process.env[name];
        return value === undefined ? [] : [[name, value]];
      }),
    );
    // The stand-in's node first, as in the image; the rest (sh, npm) is this machine's.
    machine["PATH"] = `${nodeBin}:${process.env["PATH"] ?? "/usr/bin:/bin"}`;
    return new Promise((resolve, reject) => {
      const child = spawn("sh", ["-c", command], {
        cwd,
        env: { ...machine, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const collect = (chunk: Buffer): void => {
        output = (output + chunk.toString("utf8")).slice(-8_000);
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      child.once("error", reject);
      child.once("exit", (code, signal) => {
        if (code === 0) resolve();
        else
          reject(new DockerfileError(`line ${line}: RUN ${command} failed (${code ?? signal}):\n${output}`));
      });
    });
  }

  return {
    async replay(target) {
      const stage = stageNamed(target);
      if (stage === undefined) throw new DockerfileError(`no stage named ${target}`);
      const { rootfs, config } = await replayStage(stage);
      return { target, rootfs, nodeBin, ...config };
    },
  };
}

function ownerOf(chown: string, line: number): { uid: number; gid: number } {
  const match = /^(\d+)(?::(\d+))?$/.exec(chown);
  if (match === null) throw new DockerfileError(`line ${line}: --chown must be numeric, got ${chown}`);
  const uid = Number(match[1]);
  return { uid, gid: match[2] === undefined ? uid : Number(match[2]) };
}

/** Every path below a folder (folders before their contents), relative to it. */
function treeUnder(folder: string, prefix = ""): string[] {
  return readdirSync(join(folder, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? [relative, ...treeUnder(folder, relative)] : [relative];
  });
}

/** COPY of one entry: mode kept, owner root unless --chown (as Docker creates files). */
function copyEntry(from: string, to: string, owner: { uid: number; gid: number } | undefined): void {
  const stat = lstatSync(from);
  mkdirSync(dirname(to), { recursive: true });
  if (stat.isDirectory()) mkdirSync(to, { recursive: true });
  else if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else copyFileSync(from, to);
  if (!stat.isSymbolicLink()) chmodSync(to, stat.mode & 0o7777);
  // Only root can give files away; elsewhere the replay keeps the caller as their owner.
  if (process.getuid?.() === 0) lchownSync(to, owner?.uid ?? 0, owner?.gid ?? 0);
}

/**
 * Runs a replayed image (image-replay.ts) the way a container runtime would, as far as this
 * machine allows: its ENTRYPOINT and CMD as the process (exec form: no shell), started in its
 * WORKDIR with its ENV plus the run's own settings, as its numeric USER, as PID 1 of a PID
 * namespace of its own (so a signal reaches it as it reaches a container's first process: only
 * if the process handles it). Volumes (the chart's emptyDirs at /data and /tmp) are host folders
 * given to the image's user; an image path in ENV is mapped to its volume or into the image's
 * folder. The image's files stay root's, so the process cannot change them.
 *
 * User and namespace need root (util-linux `unshare` and `setpriv`); elsewhere the process runs
 * as the caller, in the caller's namespace. Run as root, it cannot outlive its starter.
 */
import { spawn } from "node:child_process";
import { chownSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pathInImage, type ReplayedImage } from "./image-replay.js";

export interface ContainerOptions {
  readonly image: ReplayedImage;
  /** Run-time environment (what the chart gives), over the image's ENV; host values. */
  readonly env: Readonly<Record<string, string>>;
  /** Image folder → host folder. */
  readonly volumes: Readonly<Record<string, string>>;
}

export interface ContainerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ReplayedContainer {
  /** The host's pid of the image's process (PID 1 in its namespace when run as root). */
  readonly pid: number;
  /** Whether it runs as the image's user, as PID 1 of its own namespace. */
  readonly isolated: boolean;
  readonly exited: Promise<ContainerExit>;
  /** How it ended, once it has. */
  exit(): ContainerExit | undefined;
  output(): string;
  /** Sends a signal to the image's process, as `docker stop` or the kubelet would. */
  signal(signal: NodeJS.Signals): void;
}

const isRoot = (): boolean => process.getuid?.() === 0;

export async function startReplayedContainer(options: ContainerOptions): Promise<ReplayedContainer> {
  const { image } = options;
  const [uid = 0, gid = uid] = image.user.split(":").map(Number);
  const hostPath = (imagePath: string): string => {
    for (const [volume, folder] of Object.entries(options.volumes)) {
      if (imagePath === volume || imagePath.startsWith(`${volume}/`)) {
        return posix.join(folder, imagePath.slice(volume.length));
      }
    }
    return pathInImage(image.rootfs, imagePath);
  };
  if (isRoot()) for (const folder of Object.values(options.volumes)) chownSync(folder, uid, gid);
  const env: Record<string, string> = {
    // The stand-in for the base image's Node (the project's, image-replay.ts), found first.
    PATH: `${image.nodeBin}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
    HOME: hostPath("/"),
    ...(options.volumes["/tmp"] === undefined ? {} : { TMPDIR: options.volumes["/tmp"] }),
    ...Object.fromEntries(
      [...image.env].map(([name, value]) => [name, value.startsWith("/") ? hostPath(value) : value]),
    ),
    ...options.env,
  };
  const argv = [...image.entrypoint, ...image.cmd];
  const isolated = isRoot();
  const command = isolated
    ? [
        // Tied to the starter: when it exits, even by a crash, unshare and then Node get SIGKILL
        // (the inner setpriv sets it again after the change of user, which clears it).
        "setpriv",
        "--pdeathsig=KILL",
        "--",
        "unshare",
        "--pid",
        "--fork",
        "--kill-child",
        "--",
        "setpriv",
        `--reuid=${uid}`,
        `--regid=${gid}`,
        "--clear-groups",
        "--pdeathsig=KILL",
        "--",
        ...argv,
      ]
    : argv;
  const child = spawn(command[0] ?? "", command.slice(1), {
    cwd: pathInImage(image.rootfs, image.workdir),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-64 * 1024);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  let ended: ContainerExit | undefined;
  const exited = new Promise<ContainerExit>((resolve) => {
    child.once("exit", (code, signal) => {
      ended = { code, signal };
      resolve(ended);
    });
  });
  const launcher = child.pid ?? 0;
  let pid = launcher;
  if (isolated) {
    // unshare forks the namespace's first process, which setpriv turns into the image's.
    for (let tries = 0; pid === launcher; tries++) {
      if (tries > 200 || ended !== undefined) throw new Error(`${argv.join(" ")} did not start:\n${output}`);
      pid = descendants(launcher).find((candidate) => readCommand(candidate)[0] === argv[0]) ?? launcher;
      if (pid === launcher) await delay(10);
    }
  }
  return {
    pid,
    isolated,
    exited,
    exit: () => ended,
    output: () => output,
    signal: (signal) => process.kill(pid, signal),
  };
}

function descendants(pid: number): number[] {
  return readChildren(pid).flatMap((child) => [child, ...descendants(child)]);
}

function readChildren(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function readCommand(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

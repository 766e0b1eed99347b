/**
 * A private control plane for one mocha suite: a scratch folder, helm, and the control plane
 * started before the suite's tests and stopped (its folder removed) after them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startControlPlane, type ControlPlane } from "./control-plane.js";
import { ensureHelm } from "./helm.js";

export interface ControlPlaneFixture {
  /** The running control plane; throws when it did not start. */
  readonly plane: () => ControlPlane;
  /** The helm binary. */
  readonly helm: () => string;
  /** The suite's scratch folder (the control plane's data lives under it). */
  readonly scratch: () => string;
}

/** Registers the suite's `before` and `after` hooks; call it in a `describe` body. */
export function usePrivateControlPlane(options: {
  readonly prefix: string;
  readonly nodes: number;
}): ControlPlaneFixture {
  let scratch: string | undefined;
  let helm: string | undefined;
  let started: ControlPlane | undefined;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), options.prefix));
    helm = await ensureHelm();
    started = await startControlPlane({ dataDir: join(scratch, "control-plane"), nodes: options.nodes });
  });

  after(async () => {
    await started?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not ready: the suite's before hook failed`);
    return value;
  };
  return {
    plane: () => ready(started, "the control plane"),
    helm: () => ready(helm, "helm"),
    scratch: () => ready(scratch, "the scratch folder"),
  };
}

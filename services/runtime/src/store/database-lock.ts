/**
 * One process at a time per embedded database: two processes appending to the same journals
 * would each keep a different picture in memory and interleave their records. The lock is a
 * file holding the owner's pid; a lock left by a process that no longer runs is taken over.
 */
import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the lock of `dir` (which must exist); resolves to its release. */
export async function acquireDatabaseLock(dir: string): Promise<() => Promise<void>> {
  const file = join(dir, "LOCK");
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(file, "wx");
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw error;
    }
    const owner = Number((await readFile(file, "utf8").catch(() => "")).trim());
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
      throw new Error(
        `database ${dir} is in use by process ${owner}${owner === process.pid ? " (this one)" : ""}`,
      );
    }
    await rm(file, { force: true });
  }
}

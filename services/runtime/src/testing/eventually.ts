/**
 * Polls `check` until it returns something other than undefined or null, or fails after
 * `timeoutMs`. Eventually-consistent effects are awaited this way, never with a fixed sleep.
 */
export async function eventually<R>(
  check: () => R,
  timeoutMs = 5_000,
  what = "condition",
): Promise<NonNullable<Awaited<R>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

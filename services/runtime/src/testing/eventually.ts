/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`.
 * Eventually-consistent effects are awaited this way, never with a fixed sleep.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 5_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

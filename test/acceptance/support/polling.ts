/**
 * Waiting for effects that arrive through events (notifications, analytics): poll until the
 * check gives an answer, or fail at a deadline. Never a fixed sleep: a fast deployment passes at
 * once, a slow one (FerretDB, a busy cluster) gets until the deadline.
 */

/** How long an event-driven effect may take to show, by default. */
export const defaultDeadlineMs = 20_000;

const pollIntervalMs = 100;

/**
 * Calls `check` until it returns something other than undefined, and returns that; throws after
 * `deadlineMs`, naming `what` it waited for.
 */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  deadlineMs = defaultDeadlineMs,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}

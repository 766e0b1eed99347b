/**
 * Waits until the platform has finished the background work a seeding step caused (events
 * relayed and consumed, here: the notifications they produce), so that a measurement that
 * follows is not competing with it. Quiet = the newest notification unchanged for a second.
 */
export async function untilQuiet(baseUrl: string, adminToken: string, timeoutMs = 120_000): Promise<void> {
  const newest = async (): Promise<string> => {
    const response = await fetch(`${baseUrl}/api/notifications/all?size=1`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    if (!response.ok) throw new Error(`GET /api/notifications/all: ${response.status}`);
    const [first] = (await response.json()) as { id: string }[];
    return first?.id ?? "";
  };
  const deadline = Date.now() + timeoutMs;
  let previous = await newest();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const current = await newest();
    if (current === previous) return;
    previous = current;
  }
  throw new Error(`the platform was still busy after ${timeoutMs} ms`);
}

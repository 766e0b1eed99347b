/**
 * Test support for outages: timing a request through the edge, and what a request must answer
 * while a store is away (503, `Retry-After`, the JSON error body, within a bound).
 */
import { expect } from "chai";
import type { ApiResponse } from "../../acceptance/support/api.js";

export interface Timed {
  readonly answer: ApiResponse;
  readonly ms: number;
}

export async function timed(request: () => Promise<ApiResponse>): Promise<Timed> {
  const started = performance.now();
  const answer = await request();
  return { answer, ms: performance.now() - started };
}

/** Expects a 503 with `Retry-After` and the one error body, answered within `withinMs`. */
export function expectUnavailable({ answer, ms }: Timed, withinMs: number, when: string): void {
  expect(answer.status, `${when}: ${answer.text}`).to.equal(503);
  expect(answer.body, when).to.deep.equal({
    status: 503,
    code: "UNAVAILABLE",
    message: "service temporarily unavailable, retry later",
  });
  expect(answer.headers.get("retry-after"), when).to.match(/^[1-9][0-9]*$/);
  expect(ms, when).to.be.below(withinMs);
}

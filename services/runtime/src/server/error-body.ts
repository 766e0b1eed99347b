/**
 * The one JSON error body of both edges: `{ "status": 404, "code": "NOT_FOUND", "message": "…" }`
 * (ADR 0005). It lives in the runtime because the HTTP server answers some
 * requests itself before any handler runs (protocol-refusals.ts), in the same shape.
 */
import type { DualResponse } from "./dual-protocol-server.js";

export interface ErrorBody {
  readonly status: number;
  /** A gRPC code name (`INVALID_ARGUMENT`), or the HTTP status's name where no gRPC code fits. */
  readonly code: string;
  /** Client-safe text: never a cause, stack or internal detail. */
  readonly message: string;
}

/** The message of a 404 for a path nothing serves, on both edges and every server. */
export const noRouteMessage = "no route for this path";

export function errorBody(status: number, code: string, message: string): ErrorBody {
  return { status, code, message };
}

export function sendError(res: DualResponse, body: ErrorBody): void {
  const text = JSON.stringify(body);
  res.writeHead(body.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

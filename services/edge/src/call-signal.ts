/**
 * The signal of the edge's upstream calls: aborted when the client goes away before its answer
 * (which cancels the call upstream, as Envoy does) or when the deadline passes. At the deadline
 * the client gets its 504 at once, whatever the handler does, so a callee can run under the
 * signal as is (ADR 0022; deadline-sweeper.ts,
 * `setSignalDeadline`).
 *
 * On HTTP/1.1 a client is its connection, which carries request after request, one at a time:
 * the connection keeps one signal until something aborts it, and each request only arms its
 * deadline on it. An AbortSignal per request was a third of the edge's cost. HTTP/2 clients can
 * cancel one stream and keep the connection, so there each request gets its own.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { setMaxListeners } from "node:events";
import {
  createDeadlineSweeper,
  setSignalDeadline,
  type Deadline,
  type DeadlineSweeper,
} from "@commerce/runtime/transport";
import { type DualRequest, type DualResponse, sendError } from "@commerce/runtime/server";
import { errorBodyFromConnectError } from "./error-response.js";

export type CallSignals = (req: DualRequest, res: DualResponse, timeoutMs: number) => CallSignal;

export function createCallSignals(): CallSignals {
  const deadlines = createDeadlineSweeper();
  const perConnection = new WeakMap<object, AbortController>();
  return (req, res, timeoutMs) => {
    const http1 = req.httpVersionMajor === 1;
    let controller = http1 ? perConnection.get(req.socket) : undefined;
    if (controller === undefined || controller.signal.aborted) {
      const created = new AbortController();
      // Each call on the connection, and each store operation of it, listens while it runs.
      setMaxListeners(0, created.signal);
      controller = created;
      (http1 ? req.socket : req).once("close", () => {
        created.abort(new ConnectError("the client went away", Code.Canceled));
      });
      if (http1) perConnection.set(req.socket, created);
    }
    return new CallSignal(controller, deadlines, Date.now() + timeoutMs, res);
  };
}

/**
 * One request's call: its signal and its deadline. A class that is its own deadline entry, so a
 * request allocates this object and nothing else for its cancellation.
 */
export class CallSignal implements Deadline {
  readonly signal: AbortSignal;
  /** The deadline passed and the client has its 504: whatever the call returns is dropped. */
  expired = false;

  constructor(
    private readonly controller: AbortController,
    private readonly deadlines: DeadlineSweeper,
    readonly at: number,
    private readonly res: DualResponse,
  ) {
    this.signal = controller.signal;
    setSignalDeadline(this.signal, at);
    deadlines.arm(this);
  }

  expire(): void {
    this.expired = true;
    const reason = new ConnectError("the operation timed out", Code.DeadlineExceeded);
    this.controller.abort(reason);
    // A client that went away needs no answer.
    if (!this.res.headersSent && !this.res.destroyed) sendError(this.res, errorBodyFromConnectError(reason));
  }

  /** The call is over: its deadline no longer applies. */
  done(): void {
    this.deadlines.disarm(this);
  }
}

/**
 * Spans to an OTLP/HTTP endpoint (`…/v1/traces`) with protobuf bodies (otlp-trace-request.ts),
 * for the SDK's batch span processor: one POST per batch on a kept-alive connection, with the
 * configured headers. What the specification's exporter does on trouble, it does: a 429, 502,
 * 503 or 504, or a connection refused or reset, is tried again after a growing, jittered pause
 * (or the `Retry-After` the collector gave), five tries at most and never past the export's
 * deadline; any other answer fails the batch, which the processor reports to the log
 * (sdk-problems.ts). A collector's partial-success answer is not read.
 */
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { setTimeout as delay } from "node:timers/promises";
import { encodeTraceRequest } from "./otlp-trace-request.js";

export interface OtlpSpanExporterOptions {
  /** The full URL spans are posted to. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The longest one export may take, its tries and pauses included. */
  readonly timeoutMs: number;
}

/** Statuses a collector answers when it may take the same batch later. */
const retryableStatuses = new Set([429, 502, 503, 504]);
const retryableErrors = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EAI_AGAIN"]);
const maxTries = 5;
const firstPauseMs = 1_000;
const longestPauseMs = 5_000;

/** One try's outcome: done, failed for good, or worth another try (after `pauseMs` if the collector said). */
type Attempt =
  | { readonly outcome: "done" }
  | { readonly outcome: "failed"; readonly error: Error }
  | { readonly outcome: "retry"; readonly error: Error; readonly pauseMs?: number };

export class OtlpSpanExporter implements SpanExporter {
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  readonly #pending = new Set<Promise<void>>();
  #shutDown = false;

  constructor(options: OtlpSpanExporterOptions) {
    this.#url = new URL(options.url);
    this.#headers = { ...options.headers, "content-type": "application/x-protobuf" };
    this.#timeoutMs = options.timeoutMs;
    const secure = this.#url.protocol === "https:";
    this.#agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.#request = secure ? httpsRequest : httpRequest;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.#shutDown) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error("the span exporter is shut down") });
      return;
    }
    const sent = this.#send(encodeTraceRequest(spans)).then(
      () => resultCallback({ code: ExportResultCode.SUCCESS }),
      (error: unknown) =>
        resultCallback({
          code: ExportResultCode.FAILED,
          error: error instanceof Error ? error : new Error(String(error)),
        }),
    );
    this.#pending.add(sent);
    void sent.finally(() => this.#pending.delete(sent));
  }

  /** Waits for the exports under way. */
  async forceFlush(): Promise<void> {
    await Promise.all(this.#pending);
  }

  async shutdown(): Promise<void> {
    this.#shutDown = true;
    await this.forceFlush();
    this.#agent.destroy();
  }

  async #send(body: Uint8Array): Promise<void> {
    const deadline = Date.now() + this.#timeoutMs;
    for (let tried = 1; ; tried += 1) {
      const attempt = await this.#post(body, deadline - Date.now());
      if (attempt.outcome === "done") return;
      if (attempt.outcome === "failed") throw attempt.error;
      const backoff = Math.min(longestPauseMs, firstPauseMs * 1.5 ** (tried - 1));
      const pauseMs = attempt.pauseMs ?? backoff * (0.8 + Math.random() * 0.4);
      if (tried >= maxTries || Date.now() + pauseMs >= deadline) throw attempt.error;
      await delay(pauseMs);
    }
  }

  /** One POST of `body`, answered within `timeoutMs`. */
  #post(body: Uint8Array, timeoutMs: number): Promise<Attempt> {
    return new Promise((resolve) => {
      const request = this.#request(
        this.#url,
        {
          method: "POST",
          agent: this.#agent,
          headers: { ...this.#headers, "content-length": body.length },
          timeout: timeoutMs,
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve(attemptOf(response)));
          response.on("error", (error) => resolve({ outcome: "failed", error }));
        },
      );
      request.on("timeout", () =>
        request.destroy(new Error(`the span export timed out after ${timeoutMs} ms`)),
      );
      request.on("error", (error: NodeJS.ErrnoException) =>
        resolve(
          retryableErrors.has(error.code ?? "") ? { outcome: "retry", error } : { outcome: "failed", error },
        ),
      );
      request.end(body);
    });
  }
}

function attemptOf(response: IncomingMessage): Attempt {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return { outcome: "done" };
  const error = new Error(`the collector answered the span export with ${status}`);
  if (!retryableStatuses.has(status)) return { outcome: "failed", error };
  const retryAfter = Number(response.headers["retry-after"]);
  return Number.isFinite(retryAfter) && retryAfter >= 0
    ? { outcome: "retry", error, pauseMs: retryAfter * 1_000 }
    : { outcome: "retry", error };
}

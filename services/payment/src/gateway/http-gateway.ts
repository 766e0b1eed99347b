/**
 * The Razorpay-compatible HTTP adapter: `POST {base}/v1/orders` with basic auth (key id, key
 * secret) and `{ amount, currency, receipt }`, amount in minor units (paise).
 *
 * Each attempt has a deadline; failed attempts are retried a bounded number of times with a
 * growing, jittered pause. Every attempt of one create carries the same `Idempotency-Key`
 * header, so a gateway that honours it (as the sandbox and our test gateway do) answers a
 * retry with the order the first attempt made: a retried create never makes two gateway
 * orders. A client error (4xx other than 408, 409, 425, 429) is not retried: the same request
 * would be refused again.
 */
import { checkRetryPolicy, retry, type RetryPolicy } from "@commerce/runtime/resilience";
import {
  GatewayError,
  type GatewayOrder,
  type GatewayOrderRequest,
  type PaymentGateway,
} from "./payment-gateway.js";

export interface HttpGatewayOptions {
  /** PAYMENT_GATEWAY_URL, e.g. `https://api.razorpay.com`. */
  readonly baseUrl: string;
  /** PAYMENT_KEY_ID. */
  readonly keyId: string;
  /** PAYMENT_KEY_SECRET. */
  readonly keySecret: string;
  /** Deadline of one attempt. Default 5 s. */
  readonly attemptTimeoutMs?: number;
  /** Attempts of one create, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** Cap of the first pause between attempts; it doubles for each next one. Default 200 ms. */
  readonly retryPauseMs?: number;
}

/**
 * The gateway's hosted checkout page, under its base URL as at Razorpay: the customer's browser
 * posts a form there to pay a gateway order (ADR 0090).
 */
export function hostedCheckoutUrl(baseUrl: string): string {
  return new URL("/v1/checkout/embedded", baseUrl).toString();
}

/** The header that makes a retried create safe. */
export const idempotencyKeyHeader = "Idempotency-Key";

const gatewayIdPattern = /^[\x21-\x7e]{1,64}$/;
const retriedStatuses = new Set([408, 409, 425, 429]);

/** One attempt's failure, and whether another attempt could succeed. */
class AttemptError extends GatewayError {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function createHttpGateway(options: HttpGatewayOptions): PaymentGateway {
  const endpoint = new URL("/v1/orders", options.baseUrl).toString();
  const authorization = `Basic ${Buffer.from(`${options.keyId}:${options.keySecret}`).toString("base64")}`;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 5_000;
  const policy: RetryPolicy = {
    maxAttempts: options.maxAttempts ?? 3,
    // Full jitter from `retryPauseMs`, uncapped: the attempts are few.
    backoff: { initialMs: options.retryPauseMs ?? 200, maxMs: Infinity, jitter: "full" },
  };
  checkRetryPolicy(policy);

  async function attempt(request: GatewayOrderRequest, signal?: AbortSignal): Promise<GatewayOrder> {
    const deadline = AbortSignal.timeout(attemptTimeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(endpoint, {
        method: "POST",
        headers: {
          authorization,
          "content-type": "application/json",
          accept: "application/json",
          [idempotencyKeyHeader]: request.idempotencyKey,
        },
        body: JSON.stringify({
          amount: request.amountMinor,
          currency: request.currency,
          receipt: request.receipt,
        }),
        signal: signal === undefined ? deadline : AbortSignal.any([signal, deadline]),
      });
      text = await response.text();
    } catch (error) {
      // A caller that gave up is not retried for; a deadline or a network failure is.
      const retryable = signal?.aborted !== true;
      throw new AttemptError(`gateway unreachable or too slow: ${describe(error)}`, retryable, {
        cause: error,
      });
    }
    if (response.status !== 200 && response.status !== 201) {
      const retryable = response.status >= 500 || retriedStatuses.has(response.status);
      throw new AttemptError(`gateway answered ${response.status}: ${text.slice(0, 200)}`, retryable);
    }
    return parseOrder(text, request);
  }

  return {
    async createOrder(request, signal) {
      try {
        return await retry(() => attempt(request, signal), {
          ...policy,
          retryable: (error) => error instanceof AttemptError && error.retryable,
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        throw error instanceof GatewayError ? error : new GatewayError(describe(error), { cause: error });
      }
    },
  };
}

/** The gateway's order from its answer, which must be for what was asked. */
function parseOrder(text: string, request: GatewayOrderRequest): GatewayOrder {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new AttemptError(`gateway answered malformed JSON: ${text.slice(0, 200)}`, true);
  }
  const { id, amount, currency } = (typeof answer === "object" && answer !== null ? answer : {}) as Record<
    string,
    unknown
  >;
  if (typeof id !== "string" || !gatewayIdPattern.test(id)) {
    throw new AttemptError("gateway answered without a usable order id", true);
  }
  if (amount !== request.amountMinor || currency !== request.currency) {
    throw new AttemptError(
      `gateway order ${id} is for ${String(amount)} ${String(currency)}, not ${request.amountMinor} ${request.currency}`,
      false, // a retry would get the same order again
    );
  }
  return { id, amountMinor: amount, currency };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

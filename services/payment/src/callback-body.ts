/** The gateway's callback body, read from its raw bytes once its signature has been checked. */
import { invalid } from "@commerce/runtime/errors";

export interface CallbackBody {
  readonly providerPaymentId: string;
  readonly providerOrderId: string;
  readonly providerSignature: string;
}

const maxFieldLength = 128;

/** The three fields, each a non-empty string of at most 128 characters; otherwise 400. */
export function parseCallbackBody(raw: Uint8Array): CallbackBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch {
    throw invalid("the callback body must be a JSON object");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw invalid("the callback body must be a JSON object");
  }
  const fields = parsed as Record<string, unknown>;
  const field = (name: string): string => {
    const value = fields[name];
    if (typeof value !== "string" || value === "" || value.length > maxFieldLength) {
      throw invalid(`${name}: must be a string of 1 to ${maxFieldLength} characters`);
    }
    return value;
  };
  return {
    providerPaymentId: field("provider_payment_id"),
    providerOrderId: field("provider_order_id"),
    providerSignature: field("provider_signature"),
  };
}

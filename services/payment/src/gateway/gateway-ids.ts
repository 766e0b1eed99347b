/** Ids in the shape Razorpay gives them: a prefix and 14 base62 characters (`order_…`, `pay_…`). */
import { randomBytes } from "node:crypto";

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const idLength = 14;

/** `prefix_` and 14 base62 characters taken from `bytes` (at least 14 of them). */
export function gatewayId(prefix: string, bytes: Uint8Array): string {
  const chars = Array.from(bytes.subarray(0, idLength), (byte) => base62.charAt(byte % base62.length));
  return `${prefix}_${chars.join("")}`;
}

/** A random `prefix_` id: about 83 bits, unguessable. */
export function randomGatewayId(prefix: string): string {
  return gatewayId(prefix, randomBytes(idLength));
}

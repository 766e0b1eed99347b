/**
 * The address of the client a request came from, as the edge saw it (ADR 0116): the edge sets
 * `x-commerce-client-address` from the connection's peer address (the local edge from its
 * socket, Envoy from the downstream remote address), after it removed any client-sent copy. A
 * service believes the header only on a request that carries the edge credential, as it does
 * the identity headers; the access interceptor leaves the address in the handler's context.
 */
import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { isIPv4, isIPv6 } from "node:net";

export const clientAddressHeader = "x-commerce-client-address";

/** The client's address of the current request; undefined when no edge vouched for one. */
export const clientAddressKey = createContextKey<string | undefined>(undefined, {
  description: "client address",
});

/** The client's address of the current request, when the edge named one. */
export function clientAddressOf(ctx: HandlerContext): string | undefined {
  return ctx.values.get(clientAddressKey);
}

/**
 * An IP address in one spelling: IPv4 dotted, IPv6 as URLs write it (lower case, the longest
 * run of zeros compressed), and an IPv4-mapped IPv6 address as its IPv4 address, which is what
 * a dual-stack socket reports for an IPv4 peer. Undefined for anything that is not an address
 * (a zone index included).
 */
export function canonicalClientAddress(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined) return undefined;
  if (isIPv4(text)) return text;
  if (!isIPv6(text) || text.includes("%")) return undefined;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped === null) return canonical;
  const high = Number.parseInt(mapped[1] ?? "0", 16);
  const low = Number.parseInt(mapped[2] ?? "0", 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/** The address the edge put on a request, in its canonical spelling (no edge check here). */
export function clientAddressFromHeaders(headers: Headers): string | undefined {
  return canonicalClientAddress(headers.get(clientAddressHeader));
}

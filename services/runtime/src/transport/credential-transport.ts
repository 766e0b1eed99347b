import type { Transport } from "@connectrpc/connect";

/**
 * A transport that sends one more header on every call: how a service presents its credential
 * for one peer (identity/request-trust.ts), on the network and in process alike.
 */
export function withCredential(transport: Transport, header: string, value: string): Transport {
  const add = (init: unknown): Headers => {
    // Typed HeadersInit, a DOM type this project's lib setting does not declare.
    const headers = new Headers(init as ConstructorParameters<typeof Headers>[0]);
    headers.set(header, value);
    return headers;
  };
  return {
    unary: (method, signal, timeoutMs, header, input, values) =>
      transport.unary(method, signal, timeoutMs, add(header), input, values),
    stream: (method, signal, timeoutMs, header, input, values) =>
      transport.stream(method, signal, timeoutMs, add(header), input, values),
  };
}

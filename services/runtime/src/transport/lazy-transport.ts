import type { Transport } from "@connectrpc/connect";

/**
 * A transport resolved on first use. In embedded mode the services call each other through the
 * host's in-memory transport, which exists only after every service has been built; handing
 * them this instead breaks the cycle without a mutable global.
 */
export function createLazyTransport(resolve: () => Transport): Transport {
  let resolved: Transport | undefined;
  const get = (): Transport => (resolved ??= resolve());
  return {
    unary: (...args) => get().unary(...args),
    stream: (...args) => get().stream(...args),
  };
}

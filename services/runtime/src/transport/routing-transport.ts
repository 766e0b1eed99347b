import { Code, ConnectError, type Transport } from "@connectrpc/connect";

/**
 * One transport over several: each call goes to the transport of its method's service. A
 * service process reaches each peer at the address its configuration gives (for example
 * `PRODUCT_SERVICE_URL` for the Order service), so domain code keeps one `transport`.
 */
export function createRoutingTransport(byService: ReadonlyMap<string, Transport>): Transport {
  const pick = (typeName: string): Transport => {
    const transport = byService.get(typeName);
    if (transport === undefined) {
      throw new ConnectError(`no address is configured for ${typeName}`, Code.Unimplemented);
    }
    return transport;
  };
  return {
    unary: (method, ...rest) => pick(method.parent.typeName).unary(method, ...rest),
    stream: (method, ...rest) => pick(method.parent.typeName).stream(method, ...rest),
  };
}

/**
 * Calls services in the same process without encoding anything: the request message goes
 * through the same interceptors (errors, access, validation) to the same handler, and the
 * response message comes back as is. Embedded mode uses it between the local edge and the
 * services, and between services.
 *
 * Why not Connect's `createRouterTransport`: it runs the whole wire protocol in memory
 * (envelopes, binary encoding, stream plumbing, linked abort signals) and cost about 300 µs per
 * call here, more than everything else a request does. Deadlines are the caller's business
 * (the edge races its own timer); cancellation travels in the caller's signal. Unary methods
 * only: streams go over the network.
 */
import { setMaxListeners } from "node:events";
import { create, isMessage, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type HandlerContext,
  type Interceptor,
  type ServiceImpl,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { ResponseMetadata, UnaryHandlerContext } from "./unary-handler-context.js";

/** What a service registers: the subset of Connect's router that ServiceRoutes use. */
export interface ServiceRegistrar {
  service<T extends DescService>(service: T, implementation: Partial<ServiceImpl<T>>): unknown;
}

type UnaryHandler = (request: unknown, context: HandlerContext) => unknown;
type Next = (req: UnaryRequest) => Promise<UnaryResponse>;

/**
 * The signal of calls made without one. Shared by every such call, so concurrent calls each add
 * a listener for the length of a store operation (the MongoDB driver removes its listener when
 * the operation ends): no listener limit applies to it.
 */
const neverAborted = new AbortController().signal;
setMaxListeners(0, neverAborted);

export function createInProcessTransport(
  register: (registrar: ServiceRegistrar) => void,
  interceptors: readonly Interceptor[],
): Transport {
  const chains = new Map<DescMethod, Next>();
  register({
    service(service, implementation) {
      for (const method of service.methods) {
        const impl = (implementation as Record<string, unknown>)[method.localName];
        if (typeof impl !== "function" || method.methodKind !== "unary") continue;
        const handler = impl.bind(implementation) as UnaryHandler;
        const call: Next = async (req) => {
          const response = new ResponseMetadata();
          const output = await handler(req.message, new UnaryHandlerContext(req, "in-process", response));
          return {
            stream: false,
            service,
            method: req.method,
            header: response.header,
            trailer: response.trailer,
            message: toMessage(method.output, output),
          } as UnaryResponse;
        };
        // Interceptors are typed for both call kinds; here they only ever see unary calls.
        chains.set(
          method,
          interceptors.reduceRight<Next>((next, interceptor) => interceptor(next as never) as Next, call),
        );
      }
    },
  });

  return {
    async unary(method, signal, _timeoutMs, header, input, contextValues) {
      const chain = chains.get(method);
      if (chain === undefined) {
        throw new ConnectError(
          `${method.parent.typeName}/${method.name} is not served in this process`,
          Code.Unimplemented,
        );
      }
      const response = await chain({
        stream: false,
        service: method.parent,
        method,
        requestMethod: "POST",
        url: `/${method.parent.typeName}/${method.name}`,
        signal: signal ?? neverAborted,
        // Typed HeadersInit, a DOM type this project's lib setting does not declare.
        header: new Headers(header as ConstructorParameters<typeof Headers>[0]),
        contextValues: contextValues ?? createContextValues(),
        message: toMessage(method.input, input),
      } as UnaryRequest);
      return response as never;
    },
    stream() {
      return Promise.reject(
        new ConnectError("streaming calls are not served in process", Code.Unimplemented),
      );
    },
  };
}

function toMessage(schema: DescMessage, value: unknown): unknown {
  return isMessage(value, schema) ? value : create(schema, value as never);
}

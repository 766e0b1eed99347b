/**
 * Calls services in the same process without encoding anything: the request message goes
 * through the same interceptors (errors, access, validation) to the same handler, and the
 * response message comes back as is. Embedded mode uses it between the local edge and the
 * services, and between services.
 *
 * Why not Connect's `createRouterTransport`: it runs the whole wire protocol in memory
 * (envelopes, binary encoding, stream plumbing) and cost about 300 µs per call here, more than
 * everything else a request does. Unary methods only: streams go over the network.
 *
 * Cancellation is the network's (docs/decisions.md "Deadlines and cancellation"): the handler's
 * signal joins the caller's signal, the call's deadline (`timeoutMs`) and the host's shutdown,
 * and the caller gets DEADLINE_EXCEEDED, CANCELED or UNAVAILABLE as soon as it fires, even if
 * the handler has not noticed yet.
 */
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

export function createInProcessTransport(
  register: (registrar: ServiceRegistrar) => void,
  interceptors: readonly Interceptor[],
  shutdownSignal?: AbortSignal,
): Transport {
  const chains = new Map<DescMethod, Next>();
  /** The deadline (epoch ms) of each call's signal, for `HandlerContext.timeoutMs()`. */
  const deadlines = new WeakMap<AbortSignal, number>();
  register({
    service(service, implementation) {
      for (const method of service.methods) {
        const impl = (implementation as Record<string, unknown>)[method.localName];
        if (typeof impl !== "function" || method.methodKind !== "unary") continue;
        const handler = impl.bind(implementation) as UnaryHandler;
        const call: Next = async (req) => {
          const response = new ResponseMetadata();
          const context = new UnaryHandlerContext(req, "in-process", response, deadlines.get(req.signal));
          const output = await handler(req.message, context);
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
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const chain = chains.get(method);
      if (chain === undefined) {
        throw new ConnectError(
          `${method.parent.typeName}/${method.name} is not served in this process`,
          Code.Unimplemented,
        );
      }
      const call = startCall(signal, timeoutMs, shutdownSignal);
      if (timeoutMs !== undefined) deadlines.set(call.signal, Date.now() + timeoutMs);
      try {
        const response = chain({
          stream: false,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: `/${method.parent.typeName}/${method.name}`,
          signal: call.signal,
          // Typed HeadersInit, a DOM type this project's lib setting does not declare.
          header: new Headers(header as ConstructorParameters<typeof Headers>[0]),
          contextValues: contextValues ?? createContextValues(),
          message: toMessage(method.input, input),
        } as UnaryRequest);
        return (await call.race(response)) as never;
      } finally {
        call.end();
      }
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

interface Call {
  /** Aborted by the caller's signal, the deadline or the shutdown, whichever comes first. */
  readonly signal: AbortSignal;
  /** Settles with `work`, or rejects as soon as the signal aborts. */
  race<T>(work: Promise<T>): Promise<T>;
  /** Detaches from the caller's and the shutdown signal and stops the deadline timer. */
  end(): void;
}

/** One AbortController per call, linked to its causes; the reason is what the caller gets. */
function startCall(
  callerSignal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  shutdownSignal: AbortSignal | undefined,
): Call {
  const controller = new AbortController();
  const onCallerAbort = (): void =>
    controller.abort(new ConnectError("the call was cancelled by its caller", Code.Canceled));
  const onShutdown = (): void =>
    controller.abort(new ConnectError("the service is shutting down", Code.Unavailable));
  if (callerSignal?.aborted === true) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  if (shutdownSignal?.aborted === true) onShutdown();
  else shutdownSignal?.addEventListener("abort", onShutdown, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => controller.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded)),
          Math.max(0, timeoutMs),
        );
  const signal = controller.signal;
  return {
    signal,
    race(work) {
      if (signal.aborted) {
        work.catch(() => undefined); // settles unobserved: the caller has its answer already
        return Promise.reject(signal.reason as Error);
      }
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          work.catch(() => undefined);
          reject(signal.reason as Error);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        work.then(
          (value) => {
            signal.removeEventListener("abort", onAbort);
            resolve(value);
          },
          (error: unknown) => {
            signal.removeEventListener("abort", onAbort);
            reject(ConnectError.from(error));
          },
        );
      });
    },
    end() {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
      shutdownSignal?.removeEventListener("abort", onShutdown);
    },
  };
}

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
 * Cancellation is the network's (ADR 0022): the handler's
 * signal joins the caller's signal, the call's deadline (`timeoutMs`) and the host's shutdown,
 * and the caller gets DEADLINE_EXCEEDED, CANCELED or UNAVAILABLE as soon as it fires, even if
 * the handler has not noticed yet.
 */
import { setMaxListeners } from "node:events";
import { create, isMessage, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type ServiceImpl,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import {
  createDeadlineSweeper,
  setSignalDeadline,
  signalDeadline,
  type Deadline,
} from "./deadline-sweeper.js";
import { headersOfRecord } from "./lazy-headers.js";
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
  const inFlight = new CallsInFlight(shutdownSignal);
  register({
    service(service, implementation) {
      for (const method of service.methods) {
        const impl = (implementation as Record<string, unknown>)[method.localName];
        if (typeof impl !== "function" || method.methodKind !== "unary") continue;
        const handler = impl.bind(implementation) as UnaryHandler;
        const call: Next = async (req) => {
          const response = new ResponseMetadata();
          const context = new UnaryHandlerContext(req, "in-process", response, signalDeadline(req.signal));
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
      // A signal whose owner answers its caller at its deadline, ending no later than this call
      // must: the call runs under it as is (the edge's calls, a service passing its request's
      // signal on to a peer). Its owner tracks it; nothing to join, time or race here.
      const owned = signal === undefined ? undefined : signalDeadline(signal);
      if (
        signal !== undefined &&
        owned !== undefined &&
        (timeoutMs === undefined || owned <= Date.now() + timeoutMs)
      ) {
        if (signal.aborted) throw toCallError(signal.reason);
        inFlight.refuseWhenShuttingDown();
        return (await chain(unaryRequest(method, signal, header, input, contextValues))) as never;
      }
      const call = inFlight.start(signal, timeoutMs);
      try {
        return (await call.race(
          chain(unaryRequest(method, call.signal, header, input, contextValues)),
        )) as never;
      } finally {
        inFlight.end(call);
      }
    },
    stream() {
      return Promise.reject(
        new ConnectError("streaming calls are not served in process", Code.Unimplemented),
      );
    },
  };
}

/** A module function, not a closure per call: tsx's keepNames made every closure a cost. */
function unaryRequest(
  method: DescMethod,
  signal: AbortSignal,
  header: Parameters<Transport["unary"]>[3],
  input: unknown,
  contextValues: ContextValues | undefined,
): UnaryRequest {
  return {
    stream: false,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: `/${method.parent.typeName}/${method.name}`,
    signal,
    header: headersOfRecord(header),
    contextValues: contextValues ?? createContextValues(),
    message: toMessage(method.input, input),
  } as UnaryRequest;
}

function toMessage(schema: DescMessage, value: unknown): unknown {
  return isMessage(value, schema) ? value : create(schema, value as never);
}

/**
 * The calls in flight of one transport. Shutdown and deadlines reach them from here: one
 * listener on the shutdown signal and one deadline sweeper serve every call, because a listener
 * on an EventTarget and a timer per call were a measurable part of an in-process call.
 */
class CallsInFlight {
  private readonly calls = new Set<Call>();
  private readonly deadlines = createDeadlineSweeper();
  private shuttingDown = false;

  constructor(shutdownSignal: AbortSignal | undefined) {
    const shutDown = (): void => {
      this.shuttingDown = true;
      for (const call of this.calls) call.abort(shutdownError());
    };
    if (shutdownSignal?.aborted === true) shutDown();
    else shutdownSignal?.addEventListener("abort", shutDown, { once: true });
  }

  /** Throws UNAVAILABLE once the transport is shutting down. */
  refuseWhenShuttingDown(): void {
    if (this.shuttingDown) throw shutdownError();
  }

  /** A call, already failed when the transport is shutting down or its deadline is past. */
  start(callerSignal: AbortSignal | undefined, timeoutMs: number | undefined): Call {
    const call = new Call(callerSignal, timeoutMs === undefined ? Infinity : Date.now() + timeoutMs);
    this.calls.add(call);
    if (call.at !== Infinity) {
      setSignalDeadline(call.signal, call.at);
      this.deadlines.arm(call);
    }
    if (this.shuttingDown) call.abort(shutdownError());
    else if (call.at <= Date.now()) call.expire();
    return call;
  }

  end(call: Call): void {
    call.detach();
    if (call.at !== Infinity) this.deadlines.disarm(call);
    this.calls.delete(call);
  }
}

const shutdownError = (): ConnectError => new ConnectError("the service is shutting down", Code.Unavailable);
const deadlineError = (): ConnectError => new ConnectError("the operation timed out", Code.DeadlineExceeded);

/**
 * One call's cancellation: one AbortController joins the caller's signal, the deadline and the
 * shutdown, and the caller gets its answer as soon as a cause fires, even if the handler has not
 * noticed yet. Its signal is registered with its deadline, so calls made under it need nothing
 * of their own.
 */
class Call implements Deadline {
  private readonly controller: AbortController;
  readonly signal: AbortSignal;
  private rejectRace: ((reason: Error) => void) | undefined;
  private settled = false;

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    /** The deadline (epoch ms; Infinity for none): the sweeper calls `expire` then. */
    readonly at: number,
  ) {
    this.controller = new AbortController();
    // Each store and peer call of the handler listens while it runs (no leak).
    setMaxListeners(0, this.controller.signal);
    this.signal = this.controller.signal;
    // The call itself listens (handleEvent): no closure per call.
    if (callerSignal?.aborted === true) this.handleEvent();
    else callerSignal?.addEventListener("abort", this, { once: true });
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.abort(toCallError(this.callerSignal?.reason));
  }

  expire(): void {
    this.abort(deadlineError());
  }

  abort(reason: ConnectError): void {
    if (this.settled) return;
    this.settled = true;
    this.controller.abort(reason);
    this.rejectRace?.(reason);
  }

  /** Settles with `work`, or rejects as soon as a cause fires. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.settled || this.signal.aborted) {
      work.catch(() => undefined); // settles unobserved: the caller has its answer already
      return Promise.reject(toCallError(this.signal.reason));
    }
    return new Promise<T>((resolve, reject) => {
      this.rejectRace = (reason) => {
        work.catch(() => undefined);
        reject(reason);
      };
      work.then(resolve, (error: unknown) => {
        reject(ConnectError.from(error));
      });
    });
  }

  /** Stops listening to the caller's signal. */
  detach(): void {
    this.callerSignal?.removeEventListener("abort", this);
  }
}

/** What a call fails with when its signal aborted: the reason when it is one, else CANCELED. */
function toCallError(reason: unknown): ConnectError {
  return reason instanceof ConnectError
    ? reason
    : new ConnectError("the call was cancelled by its caller", Code.Canceled);
}

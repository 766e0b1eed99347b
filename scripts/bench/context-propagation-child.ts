/**
 * One measurement of the context-propagation bench (context-propagation-bench.ts), in a process
 * of its own so that one way of carrying the trace context cannot tax another (on Node 20 an
 * AsyncLocalStorage, once used, hooks every promise of its process):
 *
 *   context-propagation-child.ts <carrier> <shape> <requests> <concurrency>
 *
 * runs synthetic requests of a shape, `concurrency` at a time, with the request's trace context
 * carried by `carrier`, and prints the process's CPU time per request (µs) as JSON; with the
 * carrier `count`, the promises a request makes instead. A request is what propagation sees of a
 * served call: its signal, made as Connect makes one per call; its context, bound where the
 * server interceptor binds it; at each of its span sites (an RPC, a store call) the parent
 * looked up and checked, as database-spans.ts does, then an awaited chain of async functions
 * ending in one turn of the event loop (the I/O). The context is a span context its sampler left
 * out (9 requests in 10 at 10 %): no span is made, only the context travels.
 */
import { context, ROOT_CONTEXT, trace, TraceFlags, type Context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  bindTraceContext,
  sampledOut,
  traceContextOf,
  unbindTraceContext,
} from "@commerce/runtime/telemetry";
import { createHook } from "node:async_hooks";

/** How a request's context reaches its span sites. */
interface Carrier {
  /** Runs the request's handler with `ctx` as its context (the server interceptor's part). */
  serve(signal: AbortSignal, ctx: Context, handler: () => Promise<void>): Promise<void>;
  /** The parent a span made here would have. */
  parentAt(signal: AbortSignal): Context;
}

const carriers: Record<string, Carrier> = {
  // Tracing off: nothing bound, nothing looked up.
  off: { serve: (_signal, _ctx, handler) => handler(), parentAt: () => ROOT_CONTEXT },
  // The runtime's way: rpc-server-spans.ts binds, database-spans.ts looks up.
  signal: {
    async serve(signal, ctx, handler) {
      bindTraceContext(signal, ctx);
      try {
        await handler();
      } finally {
        unbindTraceContext(signal);
      }
    },
    parentAt: (signal) => traceContextOf(signal),
  },
  // OpenTelemetry's context manager for Node: `context.with` at the server, `context.active()` below.
  "async-local-storage": {
    serve: (_signal, ctx, handler) => context.with(ctx, handler),
    parentAt: () => context.active(),
  },
};

/**
 * Span sites per request and the depth of the async chain below each, chosen so that a request
 * makes as many promises as the embedded platform's (counted with a promise hook: about 40 for
 * GET /api/products/{id}, about 460 for POST /api/orders with its events' consumers).
 */
interface RequestShape {
  readonly sites: number;
  readonly depth: number;
}

const requestShapes: Record<string, RequestShape> = {
  "catalog read": { sites: 3, depth: 4 },
  "order placed": { sites: 15, depth: 13 },
};

const [carrierName = "", shapeName = "", requestsArg = "", concurrencyArg = ""] = process.argv.slice(2);
const shape = requestShapes[shapeName];
const requests = Number(requestsArg);
const concurrency = Number(concurrencyArg);
const counting = carrierName === "count";
const carrier = counting ? carriers["off"] : carriers[carrierName];
if (carrier === undefined || shape === undefined || !(requests > 0) || !(concurrency > 0)) {
  throw new Error(
    `usage: <${[...Object.keys(carriers), "count"].join("|")}> <shape> <requests> <concurrency>`,
  );
}
if (carrierName === "async-local-storage") {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

const unsampled = trace.setSpan(
  ROOT_CONTEXT,
  trace.wrapSpanContext({
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    traceFlags: TraceFlags.NONE,
  }),
);
/** Spans that would have been made: none with this context; read so the look-ups stay. */
let spans = 0;

const io = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function below(depth: number): Promise<void> {
  if (depth === 0) await io();
  else await below(depth - 1);
}

async function request(using: Carrier, sites: number, depth: number): Promise<void> {
  const { signal } = new AbortController();
  await using.serve(signal, unsampled, async () => {
    for (let site = 0; site < sites; site++) {
      const parent = using.parentAt(signal);
      if (trace.getSpan(parent) !== undefined && !sampledOut(parent)) spans += 1;
      await below(depth);
    }
  });
}

async function run(using: Carrier, { sites, depth }: RequestShape, count: number): Promise<void> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) {
      started += 1;
      await request(using, sites, depth);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

if (counting) {
  let promises = 0;
  await run(carrier, shape, Math.ceil(requests / 10)); // warm
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") promises += 1;
    },
  }).enable();
  await run(carrier, shape, requests);
  hook.disable();
  process.stdout.write(`${JSON.stringify({ ...shape, promisesPerRequest: promises / requests })}\n`);
} else {
  await run(carrier, shape, Math.ceil(requests / 2)); // warm: the JIT's tiers, the heap's size
  const before = process.cpuUsage();
  await run(carrier, shape, requests);
  const used = process.cpuUsage(before);
  process.stdout.write(
    `${JSON.stringify({ cpuMicrosPerRequest: (used.user + used.system) / requests, spans })}\n`,
  );
}

/**
 * Test support: the network between a service and its real peers, made to fail, to be slow and
 * to be observed. A spec hands the service under test this transport instead of its own
 * (`{ ...ctx, transport: createFaultyTransport(ctx.transport) }`) and hosts the real peer
 * beside it; the peer's behaviour stays its own, only the calls to it are disturbed. So a spec
 * tests against the peer's real semantics, never against a hand-written copy of them that
 * could drift.
 *
 * Faults are set per method and hold until `restore`. Delays and hooks apply to unary and
 * streaming calls alike; requests are recorded for unary calls. Never imported by production
 * code: the production build leaves `services/runtime/src/testing` out, and lint refuses the
 * import outside specs.
 */
import {
  create,
  type DescMessage,
  type DescMethod,
  type DescMethodUnary,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { setTimeout as delay } from "node:timers/promises";

/**
 * How a call fails. `request lost`: it never reaches the peer (a peer that is down).
 * `answer lost`: the peer handles it, but the caller gets no answer (an outcome the caller
 * cannot know).
 */
export type NetworkFault = "request lost" | "answer lost";

export interface FaultyTransport extends Transport {
  /** Calls of `method` fail with UNAVAILABLE, as `fault` says, until restored. */
  fail(method: DescMethod, fault?: NetworkFault): void;
  /** Calls of `method` reach the peer `ms` later. */
  delay(method: DescMethod, ms: number): void;
  /**
   * Runs (and is awaited) on every call of `method` just before it reaches the peer, after any
   * delay: something that happens meanwhile, such as an admin changing the peer's data.
   */
  before(method: DescMethod, hook: () => Promise<void>): void;
  /** Clears the faults, delays and hooks of `method`, or of every method. Records stay. */
  restore(method?: DescMethod): void;
  /** The requests of `method` that reached the peer, in the order they did (a copy). */
  requests<I extends DescMessage>(method: DescMethodUnary<I>): MessageShape<I>[];
}

interface MethodRules {
  fault?: NetworkFault;
  delayMs?: number;
  hook?: () => Promise<void>;
}

export function createFaultyTransport(peer: Transport): FaultyTransport {
  const rules = new Map<string, MethodRules>();
  const delivered = new Map<string, unknown[]>();
  const keyOf = (method: DescMethod): string => `${method.parent.typeName}/${method.name}`;
  const rulesOf = (method: DescMethod): MethodRules => {
    const key = keyOf(method);
    const existing = rules.get(key);
    if (existing !== undefined) return existing;
    const created: MethodRules = {};
    rules.set(key, created);
    return created;
  };
  const unavailable = (method: DescMethod): ConnectError =>
    new ConnectError(`${keyOf(method)}: the network failed (test fault)`, Code.Unavailable);

  /** Delay, hook, lost request; returns the fault that remains for the answer. */
  async function onTheWay(method: DescMethod): Promise<NetworkFault | undefined> {
    const rule = rules.get(keyOf(method)) ?? {};
    if (rule.delayMs !== undefined) await delay(rule.delayMs);
    await rule.hook?.();
    if (rule.fault === "request lost") throw unavailable(method);
    return rule.fault;
  }

  return {
    async unary(method, signal, timeoutMs, header, input, values) {
      const fault = await onTheWay(method);
      const key = keyOf(method);
      delivered.set(key, [...(delivered.get(key) ?? []), create(method.input, input)]);
      const response = await peer.unary(method, signal, timeoutMs, header, input, values);
      if (fault === "answer lost") throw unavailable(method);
      return response;
    },
    async stream(method, signal, timeoutMs, header, input, values) {
      const fault = await onTheWay(method);
      const response = await peer.stream(method, signal, timeoutMs, header, input, values);
      if (fault === "answer lost") throw unavailable(method);
      return response;
    },
    fail(method, fault = "request lost") {
      rulesOf(method).fault = fault;
    },
    delay(method, ms) {
      rulesOf(method).delayMs = ms;
    },
    before(method, hook) {
      rulesOf(method).hook = hook;
    },
    restore(method) {
      if (method === undefined) rules.clear();
      else rules.delete(keyOf(method));
    },
    requests<I extends DescMessage>(method: DescMethodUnary<I>): MessageShape<I>[] {
      return [...((delivered.get(keyOf(method)) ?? []) as MessageShape<I>[])];
    },
  };
}

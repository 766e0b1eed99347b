import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type HandlerContext } from "@connectrpc/connect";
import { expect } from "chai";
import { codeOf } from "../testing/service-harness.js";
import { HealthCheckResponseSchema, Health } from "../../gen/grpc/health/v1/health_pb.js";
import { createInProcessTransport, type ServiceRegistrar } from "./in-process-transport.js";

/** A Health service whose Check waits for its signal, recording what the handler saw. */
function stalling(seen: { context?: HandlerContext; reason?: unknown }) {
  return (router: ServiceRegistrar): void => {
    router.service(Health, {
      async check(_req, ctx) {
        seen.context = ctx;
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        seen.reason = ctx.signal.reason;
        return create(HealthCheckResponseSchema, {});
      },
    });
  };
}

describe("createInProcessTransport: one signal for deadline, caller abort and shutdown", () => {
  it("fails the call with DEADLINE_EXCEEDED at its deadline, and aborts the handler's signal", async () => {
    const seen: { context?: HandlerContext; reason?: unknown } = {};
    const health = createClient(Health, createInProcessTransport(stalling(seen), []));
    const code = codeOf(health.check({}, { timeoutMs: 50 }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const remaining = seen.context?.timeoutMs();
    expect(remaining).to.be.a("number").within(1, 50);
    expect(await code).to.equal(Code.DeadlineExceeded);
    expect(ConnectError.from(seen.reason).code).to.equal(Code.DeadlineExceeded);
  });

  it("fails the call with CANCELED when its caller aborts, and aborts the handler's signal", async () => {
    const seen: { context?: HandlerContext; reason?: unknown } = {};
    const health = createClient(Health, createInProcessTransport(stalling(seen), []));
    const caller = new AbortController();
    const code = codeOf(health.check({}, { signal: caller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.context?.timeoutMs()).to.equal(undefined);
    caller.abort();
    expect(await code).to.equal(Code.Canceled);
    expect(ConnectError.from(seen.reason).code).to.equal(Code.Canceled);
  });

  it("fails calls in flight with UNAVAILABLE on shutdown, and refuses new ones", async () => {
    const seen: { context?: HandlerContext; reason?: unknown } = {};
    const shutdown = new AbortController();
    const health = createClient(Health, createInProcessTransport(stalling(seen), [], shutdown.signal));
    const code = codeOf(health.check({}));
    await new Promise((resolve) => setTimeout(resolve, 10));
    shutdown.abort();
    expect(await code).to.equal(Code.Unavailable);
    expect(ConnectError.from(seen.reason).code).to.equal(Code.Unavailable);
    expect(await codeOf(health.check({}))).to.equal(Code.Unavailable);
  });
});

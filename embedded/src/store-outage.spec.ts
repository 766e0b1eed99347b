/**
 * Readiness follows the store, and requests fail fast while it is gone (ADR 0112): the
 * platform on a FerretDB of this spec's own, reached through a TCP proxy on loopback that the
 * spec cuts (connections reset, new ones refused) or stalls (connections accepted, nothing
 * answered: a wedged server), then restores. Within 10 s of either, `/readyz` answers 503; a
 * request meanwhile answers a 503 with `Retry-After` and the one JSON error body within seconds,
 * not after the driver's 30 s; gRPC health says NOT_SERVING meanwhile; once the store is back
 * the platform is ready again by itself and the same request answers 200.
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";
import { startFerretDb, type FerretDbInstance } from "../../scripts/infra/ferretdb.js";
import { createLogger } from "@commerce/runtime/logging";
import { hostPortOf, startTcpProxy, throughAddress, type TcpProxy } from "@commerce/runtime/testing";
import { loadEmbeddedConfig } from "./embedded-config.js";
import { startPlatform, type RunningPlatform } from "./embedded-platform.js";

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: unknown;
  /** How long the answer took. */
  readonly ms: number;
}

describe("a store outage (embedded platform on FerretDB)", function () {
  this.timeout(180_000);
  let dir: string;
  let ferret: FerretDbInstance | undefined;
  let proxy: TcpProxy | undefined;
  let platform: RunningPlatform | undefined;
  let token: string;

  before(async function () {
    this.timeout(120_000);
    dir = await mkdtemp(join(tmpdir(), "store-outage-"));
    ferret = await startFerretDb({ dataDir: join(dir, "ferretdb") });
    proxy = await startTcpProxy(hostPortOf(ferret.url));
    const config = loadEmbeddedConfig({
      DATA_DIR: join(dir, "platform"),
      PORT: "0",
      GRPC_PORT: "0",
      JWT_SECRET: randomBytes(64).toString("hex"),
      ADMIN_EMAIL: "admin@store-outage.test",
      ADMIN_PASSWORD: "store-outage-admin-pw",
      MONGODB_URL: throughAddress(ferret.url, proxy.address),
    });
    platform = await startPlatform({ config, logger: createLogger("silent", "test") });
    const user = {
      fullName: "Outage Reader",
      email: "reader@store-outage.test",
      phoneNo: "+919811111111",
      password: "store-outage-pw",
    };
    expect((await call("POST", "/api/auth/register", user)).status).to.equal(201);
    const login = await call("POST", "/api/auth/login", { email: user.email, password: user.password });
    expect(login.status).to.equal(200);
    token = (login.json as { token: string }).token;
  });

  after(async () => {
    await platform?.close();
    await proxy?.close();
    await ferret?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown, bearer?: string): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (bearer !== undefined) headers["authorization"] = `Bearer ${bearer}`;
    const started = performance.now();
    const response = await fetch(`${platform?.url ?? ""}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      json: text === "" ? undefined : (JSON.parse(text) as unknown),
      ms: performance.now() - started,
    };
  }

  /** What gRPC health says of the services' port (the whole server). */
  async function grpcHealth(): Promise<ServingStatus> {
    const health = createClient(Health, createGrpcTransport({ baseUrl: platform?.grpcUrl ?? "" }));
    return (await health.check({ service: "" })).status;
  }

  /** Polls `/readyz` until it answers `status`; resolves with how long that took. */
  async function readinessBecomes(status: number, withinMs: number): Promise<number> {
    const started = performance.now();
    for (;;) {
      const { status: now } = await call("GET", "/readyz");
      if (now === status) return performance.now() - started;
      if (performance.now() - started > withinMs) {
        throw new Error(`/readyz still answers ${now} after ${withinMs} ms, expected ${status}`);
      }
      await delay(200);
    }
  }

  function expectFastUnavailable(answer: Answer, withinMs: number): void {
    expect(answer.status, JSON.stringify(answer.json)).to.equal(503);
    expect(answer.json).to.deep.equal({
      status: 503,
      code: "UNAVAILABLE",
      message: "service temporarily unavailable, retry later",
    });
    expect(answer.headers.get("retry-after")).to.match(/^[1-9][0-9]*$/);
    expect(answer.ms).to.be.below(withinMs);
  }

  it("turns not ready within 10 s of a cut, answers requests with a fast 503 meanwhile, and is ready again by itself after", async () => {
    expect((await call("GET", "/readyz")).json).to.deep.equal({ status: "ready" });
    expect((await call("GET", "/api/users/me", undefined, token)).status).to.equal(200);

    await proxy?.cut();
    const unready = await readinessBecomes(503, 10_000);
    expect((await call("GET", "/readyz")).json).to.deep.equal({ status: "not ready" });
    expect(await grpcHealth()).to.equal(ServingStatus.NOT_SERVING);
    for (const path of ["/api/users/me", "/api/orders/my", "/api/notifications"]) {
      expectFastUnavailable(await call("GET", path, undefined, token), 5_000);
    }

    await proxy?.restore();
    await readinessBecomes(200, 15_000);
    expect(await grpcHealth()).to.equal(ServingStatus.SERVING);
    const back = await call("GET", "/api/users/me", undefined, token);
    expect(back.status, JSON.stringify(back.json)).to.equal(200);
    expect((back.json as { email: string }).email).to.equal("reader@store-outage.test");
    expect(unready).to.be.below(10_000);
  });

  it("turns not ready within 10 s when the store accepts connections and answers nothing, and answers 503, not a hang", async () => {
    expect((await call("GET", "/readyz")).status).to.equal(200);

    proxy?.stall();
    const unready = await readinessBecomes(503, 10_000);
    // A request on a connection the store no longer answers waits until the driver's look at
    // the server times out (5 s, every 2 s) and cuts it; later ones fail at once.
    const first = await call("GET", "/api/users/me", undefined, token);
    expectFastUnavailable(first, 15_000);
    expectFastUnavailable(await call("GET", "/api/users/me", undefined, token), 10_000);

    await proxy?.restore();
    await readinessBecomes(200, 20_000);
    expect((await call("GET", "/api/users/me", undefined, token)).status).to.equal(200);
    expect(unready).to.be.below(10_000);
  });
});

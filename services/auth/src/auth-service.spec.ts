import { Code, ConnectError, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import { expect } from "chai";
import type { EventRecord } from "@commerce/runtime/events";
import { clientAddressHeader } from "@commerce/runtime/identity";
import type { ServiceRoutes } from "@commerce/runtime/server";
import { eventually, codeOf, startServiceHarness, type ServiceHarness } from "@commerce/runtime/testing";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { buildAuthService } from "./auth-module.js";

/** Stand-in for the User service's internal DirectoryService: records profiles, can fail. */
function directoryPeer(created: number[], failing: { on: boolean }): ServiceRoutes {
  const impl: ServiceImpl<typeof DirectoryService> = {
    createProfile(req) {
      if (failing.on) throw new Error("user service is down");
      created.push(req.userId);
      return { created: true };
    },
  };
  return {
    services: [DirectoryService],
    register: (router: ConnectRouter) => router.service(DirectoryService, impl),
  };
}

describe("Auth service over RPC", () => {
  let harness: ServiceHarness;
  let events: EventRecord[];
  const created: number[] = [];
  const failing = { on: false };
  const key = new TextEncoder().encode("s".repeat(64));
  const input = {
    fullName: "Ravi",
    email: "Ravi@X.test",
    phoneNo: "+913333333333",
    password: "ravi-password",
  };

  beforeEach(async () => {
    created.length = 0;
    failing.on = false;
    events = [];
    harness = await startServiceHarness(
      (ctx) => buildAuthService(ctx, { jwtKey: key, jwtTtlSeconds: 3600 }),
      [directoryPeer(created, failing)],
    );
    events = await harness.recordEvents("auth-events");
  });
  afterEach(() => harness.close());

  it("publishes USER_REGISTERED with the account fields and creates the profile", async () => {
    await harness.client(AuthService).register(input);
    const [registered] = await eventually(
      () => (events.length > 0 ? events : undefined),
      5_000,
      "USER_REGISTERED",
    );
    expect(registered).to.include({
      type: "USER_REGISTERED",
      topic: "auth-events",
      source: "/commerce/auth",
      subject: "1",
    });
    expect(JSON.parse(registered?.data ?? "{}") as unknown).to.include({
      userId: 1,
      email: "ravi@x.test",
      fullName: "Ravi",
      role: "CUSTOMER",
    });
    expect(created).to.deep.equal([1]);
  });

  it("still registers (and publishes) when the profile cannot be created right away", async () => {
    failing.on = true;
    await harness.client(AuthService).register(input);
    await eventually(() => (events.length > 0 ? events : undefined), 5_000, "USER_REGISTERED");
    expect(created).to.deep.equal([]);
    expect(await codeOf(harness.client(AuthService).register(input))).to.equal(Code.AlreadyExists);
  });

  it("publishes USER_LOGIN for a successful login only", async () => {
    const auth = harness.client(AuthService);
    await auth.register(input);
    expect(await codeOf(auth.login({ email: input.email, password: "wrong-password" }))).to.equal(
      Code.Unauthenticated,
    );
    expect((await auth.login({ email: input.email, password: input.password })).type).to.equal("Bearer");
    const types = await eventually(
      () => (events.length >= 2 ? events.map((e) => e.type) : undefined),
      5_000,
      "two auth events",
    );
    expect(types).to.deep.equal(["USER_REGISTERED", "USER_LOGIN"]);
  });

  /** A call's failure: its code and the seconds its `retry-after` asks for (0 without one). */
  async function refusal(call: Promise<unknown>): Promise<{ code: Code; retryAfter: number }> {
    try {
      await call;
    } catch (error) {
      const connectError = ConnectError.from(error);
      return { code: connectError.code, retryAfter: Number(connectError.metadata.get("retry-after") ?? 0) };
    }
    throw new Error("expected the call to fail");
  }

  const from = (address: string) => ({ headers: { [clientAddressHeader]: address } });

  it("after 50 wrong passwords from one client address, logs the owner in from another; the first waits", async () => {
    const auth = harness.client(AuthService);
    await auth.register(input);
    const codes: Code[] = [];
    for (let i = 0; i < 50; i++) {
      const { code, retryAfter } = await refusal(
        auth.login({ email: input.email, password: `wrong-${i}-password` }, from("127.0.0.2")),
      );
      codes.push(code);
      if (code === Code.ResourceExhausted) expect(retryAfter).to.be.within(1, 30);
    }
    expect(codes.filter((code) => code === Code.Unauthenticated)).to.have.length(5);
    expect(codes.filter((code) => code === Code.ResourceExhausted)).to.have.length(45);
    const right = { email: input.email, password: input.password };
    expect((await refusal(auth.login(right, from("127.0.0.2")))).code).to.equal(Code.ResourceExhausted);
    expect((await auth.login(right, from("127.0.0.1"))).type).to.equal("Bearer");
  });

  it("throttles an unknown email exactly as an account", async () => {
    const auth = harness.client(AuthService);
    await auth.register(input);
    const codesOf = async (email: string): Promise<Code[]> => {
      const codes: Code[] = [];
      for (let i = 0; i < 6; i++) {
        codes.push(
          (await refusal(auth.login({ email, password: "wrong-password" }, from("127.0.0.3")))).code,
        );
      }
      return codes;
    };
    const five = (code: Code): Code[] => [code, code, code, code, code, Code.ResourceExhausted];
    expect(await codesOf(input.email)).to.deep.equal(five(Code.Unauthenticated));
    expect(await codesOf("nobody@x.test")).to.deep.equal(five(Code.NotFound));
  });

  it("believes a client address only from the edge: forged addresses without its credential share one budget", async () => {
    const auth = harness.client(AuthService);
    await auth.register(input);
    const direct = harness.peerClient(AuthService);
    for (let i = 1; i <= 5; i++) {
      const attempt = direct.login({ email: input.email, password: "wrong-password" }, from(`10.0.0.${i}`));
      expect((await refusal(attempt)).code).to.equal(Code.Unauthenticated);
    }
    const sixth = direct.login({ email: input.email, password: input.password }, from("10.0.0.6"));
    expect((await refusal(sixth)).code).to.equal(Code.ResourceExhausted);
    const right = { email: input.email, password: input.password };
    expect((await auth.login(right, from("10.0.0.6"))).type).to.equal("Bearer");
  });

  it("gives concurrent registrations distinct sequential ids", async () => {
    const auth = harness.client(AuthService);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => auth.register({ ...input, email: `user${i}@x.test` })),
    );
    expect([...created].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  /** The events of `type` published so far, once at least `count` are there. */
  function published(type: string, count = 1): Promise<EventRecord[]> {
    return eventually(
      () => {
        const found = events.filter((e) => e.type === type);
        return found.length >= count ? found : undefined;
      },
      5_000,
      type,
    );
  }

  it("publishes USER_DELETED once when the account is deleted, and the account cannot log in", async () => {
    const auth = harness.client(AuthService);
    await auth.register(input);
    const accounts = harness.peerClient(AccountService);
    expect((await accounts.deleteAccount({ userId: 1 })).deleted).to.equal(true);
    expect((await accounts.deleteAccount({ userId: 1 })).deleted).to.equal(false);
    const [deleted] = await published("USER_DELETED");
    expect(deleted).to.include({
      type: "USER_DELETED",
      topic: "auth-events",
      source: "/commerce/auth",
      subject: "1",
    });
    const data = JSON.parse(deleted?.data ?? "{}") as Record<string, unknown>;
    expect(data).to.have.keys("userId", "email", "deletedAt");
    expect(data).to.include({ userId: 1, email: "ravi@x.test" });
    expect(data["deletedAt"]).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(await codeOf(auth.login({ email: input.email, password: input.password }))).to.equal(
      Code.NotFound,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events.filter((e) => e.type === "USER_DELETED")).to.have.length(1);
  });

  it("issues tokens that name the account (uid)", async () => {
    const auth = harness.client(AuthService);
    await auth.register(input);
    const { token } = await auth.login({ email: input.email, password: input.password });
    const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as object;
    expect(claims).to.include({ sub: "ravi@x.test", role: "CUSTOMER", uid: 1 });
  });

  it("publishes USER_ROLE_CHANGED once when the operator's admin account promotes an existing customer", async () => {
    await harness.client(AuthService).register(input);
    const admin = { email: input.email, password: input.password };
    for (let start = 0; start < 2; start++) {
      const module = await buildAuthService(harness.context, { jwtKey: key, jwtTtlSeconds: 3600, admin });
      await module.start(); // the second start finds the account ADMIN already: no event
      await module.stop();
    }
    const [changed] = await published("USER_ROLE_CHANGED");
    expect(changed).to.include({ type: "USER_ROLE_CHANGED", topic: "auth-events", subject: "1" });
    const data = JSON.parse(changed?.data ?? "{}") as Record<string, unknown>;
    expect(data).to.have.keys("userId", "email", "role", "changedAt");
    expect(data).to.include({ userId: 1, email: "ravi@x.test", role: "ADMIN" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Two relays (two starts) may both publish the one entry; consumers dedupe by event id.
    expect(new Set(events.filter((e) => e.type === "USER_ROLE_CHANGED").map((e) => e.id)).size).to.equal(1);
    const { token } = await harness.client(AuthService).login(admin);
    expect(JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString())).to.include({
      role: "ADMIN",
    });
  });
});

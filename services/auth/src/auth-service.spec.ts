import { Code, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import { expect } from "chai";
import type { EventRecord } from "@commerce/runtime/events/event-bus.js";
import type { ServiceRoutes } from "@commerce/runtime/server/service-host.js";
import { eventually } from "@commerce/runtime/testing/eventually.js";
import {
  codeOf,
  startServiceHarness,
  type ServiceHarness,
} from "@commerce/runtime/testing/service-harness.js";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { buildAuthService } from "./server.js";

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

  it("gives concurrent registrations distinct sequential ids", async () => {
    const auth = harness.client(AuthService);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => auth.register({ ...input, email: `user${i}@x.test` })),
    );
    expect([...created].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

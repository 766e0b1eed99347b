import { Code, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import type { ServiceRoutes } from "@commerce/runtime/server";
import { expect } from "chai";
import { codeOf, startServiceHarness, type ServiceHarness, eventually } from "@commerce/runtime/testing";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { createEventFactory } from "@commerce/runtime/events";
import { UserRegisteredSchema } from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import { openProfileCollections } from "./profile-store.js";
import { buildUserService } from "./user-module.js";

/** Stand-in for the Auth service's internal AccountService: records calls, can be made to fail. */
function accountPeer(calls: number[], failing: { on: boolean }): ServiceRoutes {
  const impl: ServiceImpl<typeof AccountService> = {
    deleteAccount(req) {
      if (failing.on) throw new Error("auth is down");
      calls.push(req.userId);
      return { deleted: true };
    },
    findEmailHolders() {
      // Asked only by the backfill of addresses from before owners by id (address-owners.spec.ts).
      throw new Error("these tests store no address from before owners by id");
    },
  };
  return {
    services: [AccountService],
    register: (router: ConnectRouter) => router.service(AccountService, impl),
  };
}

describe("User service over RPC", () => {
  let harness: ServiceHarness;
  const deleted: number[] = [];
  const failing = { on: false };
  const alice = { userId: 1, email: "alice@x.test", role: "CUSTOMER" as const };
  const admin = { userId: 2, email: "root@x.test", role: "ADMIN" as const };

  beforeEach(async () => {
    deleted.length = 0;
    failing.on = false;
    harness = await startServiceHarness(buildUserService, [accountPeer(deleted, failing)]);
    const directory = harness.peerClient(DirectoryService);
    await directory.createProfile({
      userId: 1,
      email: alice.email,
      fullName: "Alice",
      phoneNo: "+911111111111",
      role: "CUSTOMER",
      createdAt: "2026-01-01T00:00:00",
    });
    await directory.createProfile({
      userId: 2,
      email: admin.email,
      fullName: "Root",
      phoneNo: "",
      role: "ADMIN",
      createdAt: "2026-01-01T00:00:00",
    });
  });
  afterEach(() => harness.close());

  it("refuses anonymous callers with UNAUTHENTICATED and customers on admin methods with PERMISSION_DENIED", async () => {
    expect(await codeOf(harness.client(UserService).getMe({}))).to.equal(Code.Unauthenticated);
    expect(await codeOf(harness.client(UserService, alice).listUsers({}))).to.equal(Code.PermissionDenied);
    expect(await codeOf(harness.client(UserService, alice).deleteUser({ userId: 2 }))).to.equal(
      Code.PermissionDenied,
    );
  });

  it("validates requests before the handler runs", async () => {
    const users = harness.client(UserService, alice);
    expect(await codeOf(users.updateMe({ fullName: "", phoneNo: "+911111111111" }))).to.equal(
      Code.InvalidArgument,
    );
    expect((await users.getMe({})).fullName).to.equal("Alice");
  });

  it("creates a profile once: a repeat with the same id changes nothing", async () => {
    const directory = harness.peerClient(DirectoryService);
    const again = await directory.createProfile({
      userId: 1,
      email: alice.email,
      fullName: "Other",
      phoneNo: "",
      role: "CUSTOMER",
      createdAt: "2030-01-01T00:00:00",
    });
    expect(again.created).to.equal(false);
    expect((await harness.client(UserService, alice).getMe({})).fullName).to.equal("Alice");
  });

  it("deletes the credentials before the profile, and keeps the profile when that fails", async () => {
    failing.on = true;
    expect(await codeOf(harness.client(UserService, admin).deleteUser({ userId: 1 }))).to.equal(
      Code.Unavailable,
    );
    expect((await harness.client(UserService, alice).getMe({})).id).to.equal(1);
    failing.on = false;
    await harness.client(UserService, admin).deleteUser({ userId: 1 });
    expect(deleted).to.deep.equal([1]);
    expect(await codeOf(harness.client(UserService, alice).getMe({}))).to.equal(Code.NotFound);
  });

  it("refuses an admin deleting their own account with a conflict", async () => {
    expect(await codeOf(harness.client(UserService, admin).deleteUser({ userId: 2 }))).to.equal(
      Code.AlreadyExists,
    );
    expect(deleted).to.deep.equal([]);
  });

  it("gives a later account of a deleted account's email none of its addresses, even one its deletion missed", async () => {
    const address = { street: "1 Old Road", city: "Pune", state: "MH", pincode: "411001" };
    await harness.client(UserService, alice).addAddress({ address });
    const [old] = (await harness.client(UserService, alice).listAddresses({})).addresses;
    await harness.client(UserService, admin).deleteUser({ userId: 1 });
    // An address added while the deletion ran (the old token still valid there) outlives it.
    const { addresses } = await openProfileCollections(harness.context.store);
    await addresses.insert({ _id: 99, _v: 1, owner: alice.email, ownerId: 1, ...address });
    await harness.peerClient(DirectoryService).createProfile({
      userId: 3,
      email: alice.email,
      fullName: "Someone Else",
      phoneNo: "",
      role: "CUSTOMER",
      createdAt: "2026-02-01T00:00:00",
    });
    const later = harness.client(UserService, { userId: 3, email: alice.email, role: "CUSTOMER" });
    expect((await later.listAddresses({})).addresses).to.deep.equal([]);
    expect(await addresses.get(old?.id ?? 0)).to.equal(undefined);
    expect(
      await codeOf(later.updateAddress({ addressId: 99, address: { ...address, city: "Goa" } })),
    ).to.equal(Code.PermissionDenied);
    expect(await codeOf(later.deleteAddress({ addressId: 99 }))).to.equal(Code.PermissionDenied);
    expect((await addresses.get(99))?.city).to.equal("Pune");
  });

  it("gives addresses increasing integer ids under concurrent adds", async () => {
    const users = harness.client(UserService, alice);
    const address = { street: "s", city: "c", state: "st", pincode: "560001" };
    await Promise.all(Array.from({ length: 20 }, () => users.addAddress({ address })));
    const { addresses } = await users.listAddresses({});
    expect(addresses.map((a) => a.id)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe("User service: USER_REGISTERED consumer", () => {
  it("creates the missing profile from the event, once however often it arrives", async () => {
    const harness = await startServiceHarness(buildUserService, [accountPeer([], { on: false })]);
    try {
      const events = createEventFactory("/commerce/auth");
      const registered = events.event(
        UserRegisteredSchema,
        {
          userId: 9,
          email: "late@x.test",
          fullName: "Late",
          phoneNo: "+912222222222",
          role: "CUSTOMER",
          registeredAt: "2026-02-03T04:05:06",
        },
        "9",
      );
      await harness.bus.publish([registered, registered]);
      const users = harness.client(UserService, { userId: 9, email: "late@x.test", role: "CUSTOMER" });
      const profile = await eventually(() => users.getMe({}).catch(() => undefined), 5_000, "the profile");
      expect(profile).to.include({
        id: 9,
        fullName: "Late",
        phoneNo: "+912222222222",
        role: "CUSTOMER",
        createdAt: "2026-02-03T04:05:06",
      });
      const admin = harness.client(UserService, { userId: 2, email: "root@x.test", role: "ADMIN" });
      expect((await admin.listUsers({})).users.map((u) => u.email)).to.deep.equal(["late@x.test"]);
    } finally {
      await harness.close();
    }
  });
});

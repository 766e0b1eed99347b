import { expect } from "chai";
import { buildAuthService } from "@commerce/auth";
import { migrationRecordsSpec } from "@commerce/runtime/store";
import {
  composeModules,
  eventually,
  registerAccount,
  startServiceHarness,
  testStoreBackends,
  type ServiceHarness,
  type TestStore,
} from "@commerce/runtime/testing";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { openProfileCollections, type AddressDocument } from "./profile-store.js";
import { buildUserService } from "./user-module.js";

const key = new TextEncoder().encode("u".repeat(64));

/** An address as the release before owners by id wrote it: its owner named by email only. */
function legacyAddress(id: number, owner: string): AddressDocument {
  return { _id: id, _v: 1, owner, street: `${id} Old Road`, city: "Pune", state: "MH", pincode: "411001" };
}

for (const backend of testStoreBackends("services/user/src/address-owners.spec.ts")) {
  describe(`User service: owners of the addresses added before owners by id (${backend.name})`, function () {
    this.timeout(30_000);
    let authStore: TestStore;
    let userStore: TestStore;
    let harness: ServiceHarness;
    const ids = { reused: 0, only: 0 };

    /** The Auth service on its store, and the User service on its own once `withUsers`. */
    const start = (withUsers: boolean): Promise<ServiceHarness> =>
      startServiceHarness(async (ctx) => {
        const auth = await buildAuthService(
          { ...ctx, store: authStore.store },
          { jwtKey: key, jwtTtlSeconds: 120 },
        );
        if (!withUsers) return auth;
        return composeModules(
          auth,
          await buildUserService({ ...ctx, store: userStore.store }, { ownerBackfillIntervalMs: 100 }),
        );
      });

    beforeEach(async () => {
      authStore = await backend.open();
      userStore = await backend.open();
      const accounts = await start(false);
      const first = await registerAccount(accounts, "reused@x.test");
      await accounts.peerClient(AccountService).deleteAccount({ userId: first });
      ids.reused = await registerAccount(accounts, "reused@x.test");
      ids.only = await registerAccount(accounts, "only@x.test");
      await accounts.close();
      const { addresses, profiles } = await openProfileCollections(userStore.store);
      for (const [userId, email] of [
        [ids.reused, "reused@x.test"],
        [ids.only, "only@x.test"],
      ] as const) {
        const profile = {
          fullName: "Asha",
          phoneNo: "",
          role: "CUSTOMER" as const,
          createdAt: "2026-01-01T00:00:00",
        };
        await profiles.insert({ _id: userId, _v: 1, email, ...profile });
      }
      // One the first account's deletion missed, or the later account's own: nothing tells which.
      await addresses.insert(legacyAddress(1, "reused@x.test"));
      await addresses.insert(legacyAddress(2, "only@x.test"));
      await addresses.insert(legacyAddress(3, "gone@x.test"));
      harness = await start(true);
    });
    afterEach(async () => {
      await harness.close();
      await authStore.close();
      await userStore.close();
    });

    it("gives an address the email's account only when the email never had another", async () => {
      expect((await (await userStore.store.collection(migrationRecordsSpec)).get(1))?.state).to.equal("done");
      const { addresses } = await openProfileCollections(userStore.store);
      const owners = (await addresses.find({}, { sort: [{ field: "_id", direction: 1 }] })).map(
        (a) => a.ownerId,
      );
      expect(owners).to.deep.equal([0, ids.only, 0]);
      const users = (userId: number, email: string) =>
        harness.client(UserService, { userId, email, role: "CUSTOMER" });
      expect(
        (await users(ids.only, "only@x.test").listAddresses({})).addresses.map((a) => a.id),
      ).to.deep.equal([2]);
      expect((await users(ids.reused, "reused@x.test").listAddresses({})).addresses).to.deep.equal([]);
    });

    it("gives an owner, by a later pass, to an address an older replica added after the migration", async () => {
      const { addresses } = await openProfileCollections(userStore.store);
      await addresses.insert(legacyAddress(4, "only@x.test"));
      await eventually(
        async () => ((await addresses.get(4))?.ownerId === ids.only ? true : undefined),
        10_000,
      );
    });
  });
}

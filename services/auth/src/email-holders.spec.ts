import { Code, type ConnectRouter } from "@connectrpc/connect";
import { expect } from "chai";
import type { RevokedAccountDocument } from "@commerce/runtime/identity";
import { revokedAccountsSpec } from "@commerce/runtime/identity";
import type { ServiceRoutes } from "@commerce/runtime/server";
import { migrationRecordsSpec } from "@commerce/runtime/store";
import {
  codeOf,
  registerAccount,
  startServiceHarness,
  testStoreBackends,
  type ServiceHarness,
  type TestStore,
} from "@commerce/runtime/testing";
import { formatTimestamp } from "@commerce/runtime/time";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { openAccountCollections } from "./account-store.js";
import { buildAuthService } from "./auth-module.js";
import { clockToleranceMs, createEmailHolders } from "./email-holders.js";

/** The User service's CreateProfile, answered: the profile is not what these tests look at. */
const directory: ServiceRoutes = {
  services: [DirectoryService],
  register: (router: ConnectRouter) =>
    router.service(DirectoryService, { createProfile: () => ({ created: true }) }),
};

const ttlSeconds = 120;
const key = new TextEncoder().encode("k".repeat(64));
const minute = 60_000;
/** Past a token's lifetime and the clocks' tolerance, from now. */
const afterTokensDied = (): number => Date.now() + ttlSeconds * 1_000 + clockToleranceMs + minute;

for (const backend of testStoreBackends("services/auth/src/email-holders.spec.ts")) {
  describe(`FindEmailHolders (${backend.name})`, function () {
    this.timeout(20_000);
    let authStore: TestStore;
    let revocationStore: TestStore;
    let harness: ServiceHarness;
    /** A deleted account that only the revocation feed knows: it went before former accounts were kept. */
    const deletedLongAgo: RevokedAccountDocument = {
      _id: 900,
      email: "reused.before@x.test",
      deletedAt: formatTimestamp(new Date(Date.now() - 10_000)),
    };

    beforeEach(async () => {
      authStore = await backend.open();
      revocationStore = await backend.open();
      await (await revocationStore.store.collection(revokedAccountsSpec)).insert(deletedLongAgo);
      harness = await startServiceHarness(
        (ctx) =>
          buildAuthService(
            { ...ctx, store: authStore.store },
            { jwtKey: key, jwtTtlSeconds: ttlSeconds, revocations: revocationStore.store },
          ),
        [directory],
      );
    });
    afterEach(async () => {
      await harness.close();
      await authStore.close();
      await revocationStore.close();
    });

    const register = (email: string): Promise<number> => registerAccount(harness, email);

    const holders = async (...queries: [string, number][]): Promise<number[]> =>
      (
        await harness
          .peerClient(AccountService)
          .findEmailHolders({ queries: queries.map(([email, atMs]) => ({ email, atMs: BigInt(atMs) })) })
      ).userIds;

    it("names the one account an email ever had, for any time since its creation or no time", async () => {
      const id = await register("Only@X.test");
      const now = Date.now();
      expect(
        await holders(["only@x.test", now], ["ONLY@x.test", now + 30 * minute], ["only@x.test", 0]),
      ).to.deep.equal([id, id, id]);
      // Made before the account existed (beyond the clocks' tolerance): not its.
      expect(await holders(["only@x.test", now - clockToleranceMs - minute])).to.deep.equal([0]);
      expect(await holders(["nobody@x.test", now])).to.deep.equal([0]);
    });

    it("gives a reused email's later account only what was made after every former holder's tokens died", async () => {
      const first = await register("reused@x.test");
      const made = Date.now();
      expect((await harness.peerClient(AccountService).deleteAccount({ userId: first })).deleted).to.equal(
        true,
      );
      const second = await register("reused@x.test");
      expect(second).to.be.above(first);
      // The first account's document, its deletion, or a token of it used since: nobody's.
      expect(
        await holders(["reused@x.test", made], ["reused@x.test", Date.now()], ["reused@x.test", 0]),
      ).to.deep.equal([0, 0, 0]);
      expect(await holders(["reused@x.test", afterTokensDied()])).to.deep.equal([second]);
      const { formerAccounts } = await openAccountCollections(authStore.store);
      expect(await formerAccounts.get(first)).to.deep.include({ _id: first, email: "reused@x.test" });
    });

    it("knows the deletions made before former accounts were kept, from the revocation feed (migration 1)", async () => {
      const { formerAccounts } = await openAccountCollections(authStore.store);
      expect(await formerAccounts.get(900)).to.deep.equal({ ...deletedLongAgo, createdAt: "" });
      const records = await authStore.store.collection(migrationRecordsSpec);
      expect((await records.get(1))?.state).to.equal("done");
      const later = await register(deletedLongAgo.email);
      expect(await holders([deletedLongAgo.email, Date.now()], [deletedLongAgo.email, 0])).to.deep.equal([
        0, 0,
      ]);
      expect(await holders([deletedLongAgo.email, afterTokensDied()])).to.deep.equal([later]);
    });

    it("names nobody for an email whose only account was deleted", async () => {
      const id = await register("gone@x.test");
      const made = Date.now();
      await harness.peerClient(AccountService).deleteAccount({ userId: id });
      expect(
        await holders(["gone@x.test", made], ["gone@x.test", afterTokensDied()], ["gone@x.test", 0]),
      ).to.deep.equal([0, 0, 0]);
    });

    it("answers peers only, and refuses an empty request", async () => {
      expect(
        await codeOf(
          harness.client(AccountService).findEmailHolders({ queries: [{ email: "a@x.test", atMs: 1n }] }),
        ),
      ).to.equal(Code.Unauthenticated);
      expect(await codeOf(harness.peerClient(AccountService).findEmailHolders({ queries: [] }))).to.equal(
        Code.InvalidArgument,
      );
    });
  });
}

describe("createEmailHolders", () => {
  it("is unavailable until the former accounts are complete", async () => {
    const holders = createEmailHolders({
      accounts: { find: () => Promise.resolve([]) },
      formerAccounts: { find: () => Promise.resolve([]) },
      tokenTtlMs: 3_600_000,
      ready: () => false,
    });
    const error = await holders.find([{ email: "a@x.test", atMs: 1 }]).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).to.deep.include({ kind: "unavailable" });
  });
});

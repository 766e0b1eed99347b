import { Code } from "@connectrpc/connect";
import { expect } from "chai";
import { buildAuthService } from "@commerce/auth";
import { migrationRecordsSpec, type Collection } from "@commerce/runtime/store";
import {
  codeOf,
  composeModules,
  eventually,
  registerAccount,
  startServiceHarness,
  testStoreBackends,
  type ServiceHarness,
  type TestStore,
} from "@commerce/runtime/testing";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { buildOrderService } from "./order-module.js";
import { storedOrder } from "./testing/stored-order.js";
import { openOrderCollections, type OrderDocument } from "./order-store.js";

const key = new TextEncoder().encode("o".repeat(64));
const ttlSeconds = 120;
const admin = { userId: 500, email: "root@x.test", role: "ADMIN" as const };
/** Past every former holder's tokens (JWT_TTL) and the clocks' tolerance (a minute), from now. */
const muchLater = (): number => Date.now() + ttlSeconds * 1_000 + 3 * 60_000;

for (const backend of testStoreBackends("services/order/src/order-owners.spec.ts")) {
  describe(`Order service: owners of the orders placed before owners by id (${backend.name})`, function () {
    this.timeout(30_000);
    let authStore: TestStore;
    let orderStore: TestStore;
    let harness: ServiceHarness | undefined;
    const ids = { first: 0, second: 0, other: 0 };

    /** The Auth service on its store, and the Order service on its own once `withOrders`. */
    const start = (withOrders: boolean): Promise<ServiceHarness> =>
      startServiceHarness(async (ctx) => {
        const auth = await buildAuthService(
          { ...ctx, store: authStore.store },
          { jwtKey: key, jwtTtlSeconds: ttlSeconds },
        );
        if (!withOrders) return auth;
        const orders = await buildOrderService(
          { ...ctx, store: orderStore.store },
          { ownerBackfillIntervalMs: 100 },
        );
        return composeModules(auth, orders);
      });

    let orders: Collection<OrderDocument>;

    beforeEach(async () => {
      authStore = await backend.open();
      orderStore = await backend.open();
      orders = (await openOrderCollections(orderStore.store)).orders;
      // The accounts: one whose email is deleted and registered again, and another.
      const accounts = await start(false);
      ids.first = await registerAccount(accounts, "asha@x.test");
      const placedByFirst = Date.now();
      await accounts.peerClient(AccountService).deleteAccount({ userId: ids.first });
      ids.second = await registerAccount(accounts, "asha@x.test");
      ids.other = await registerAccount(accounts, "ravi@x.test");
      await accounts.close();
      // The orders the release before wrote: by email only.
      await orders.insert(storedOrder("ord_first", "asha@x.test", { placedAt: placedByFirst }));
      await orders.insert(storedOrder("ord_second", "asha@x.test", { placedAt: muchLater() }));
      await orders.insert(storedOrder("ord_other", "ravi@x.test"));
      await orders.insert(storedOrder("ord_abandoned", "ravi@x.test", { status: "ABANDONED" }));
      harness = await start(true);
    });
    afterEach(async () => {
      await harness?.close();
      await authStore.close();
      await orderStore.close();
    });

    const ownerOf = async (id: string): Promise<number | undefined> => (await orders.get(id))?.customerUserId;
    const running = (): ServiceHarness => {
      if (harness === undefined) throw new Error("not started");
      return harness;
    };

    it("gives each order the account that held its email then, never the later account of a reused email", async () => {
      // Migration 1 ran before the service served.
      expect((await (await orderStore.store.collection(migrationRecordsSpec)).get(1))?.state).to.equal(
        "done",
      );
      expect([
        await ownerOf("ord_first"),
        await ownerOf("ord_second"),
        await ownerOf("ord_other"),
        await ownerOf("ord_abandoned"),
      ]).to.deep.equal([0, ids.second, ids.other, 0]);

      const later = { userId: ids.second, email: "asha@x.test", role: "CUSTOMER" as const };
      const client = running().client(OrderService, later);
      expect((await client.listMyOrders({})).orders.map((o) => o.orderId)).to.deep.equal(["ord_second"]);
      expect(await codeOf(client.getOrder({ orderId: "ord_first" }))).to.equal(Code.PermissionDenied);
      // The first account's order stays the shop's: the admin reads it, with its email.
      const read = await running().client(OrderService, admin).getOrder({ orderId: "ord_first" });
      expect(read.customerId).to.equal("asha@x.test");
      const payable = await running()
        .peerClient(PayableOrderService)
        .getPayableOrder({ orderId: "ord_first" });
      expect(payable.customerUserId).to.equal(0);
      // The migration changed the owner and nothing else.
      expect(await orders.get("ord_other")).to.deep.equal({
        ...storedOrder("ord_other", "ravi@x.test", {
          placedAt: (await orders.get("ord_other"))?.placedAt ?? 0,
        }),
        _v: 2,
        customerUserId: ids.other,
      });
    });

    it("gives an owner, by a later pass, to an order an older replica wrote after the migration", async () => {
      await orders.insert(storedOrder("ord_straggler", "ravi@x.test"));
      await eventually(
        async () => ((await ownerOf("ord_straggler")) === ids.other ? true : undefined),
        10_000,
      );
      const payable = await running()
        .peerClient(PayableOrderService)
        .getPayableOrder({ orderId: "ord_straggler" });
      expect(payable.customerUserId).to.equal(ids.other);
    });
  });
}

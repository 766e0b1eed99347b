import { expect } from "chai";
import { adminLogin, registeredUser, type TestUser } from "./support/accounts.js";
import { api, type ApiResponse } from "./support/api.js";
import { createdProduct } from "./support/catalog.js";
import { awaitMyNotification, myNotifications } from "./support/notifications.js";

interface Placed {
  orderId: string;
  status: string;
  totalAmount: number;
}

interface OrderBody {
  orderId: string;
  customerId: string;
  status: string;
  orderDate: string;
  totalAmount: number;
  items: { productId: string; quantity: number; price: number }[];
}

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** A new active product (created by the admin) with this price in rupees and this stock. */
function stockedProduct(price: number, stock: number): Promise<string> {
  return createdProduct({ price, stock });
}

/** The product's stock as the public product endpoint shows it. */
async function stockOf(productId: string): Promise<number> {
  const response = await api("GET", `/api/products/${encodeURIComponent(productId)}`);
  expect(response.status, response.text).to.equal(200);
  return (response.body as { stock: number }).stock;
}

function placeOrder(token: string, items: unknown): Promise<ApiResponse> {
  return api("POST", "/api/orders", { token, body: { items } });
}

async function placed(token: string, items: { productId: string; quantity: number }[]): Promise<Placed> {
  const response = await placeOrder(token, items);
  expect(response.status, response.text).to.equal(201);
  return response.body as Placed;
}

function setStatus(orderId: string, status: string, token: string): Promise<ApiResponse> {
  return api("PUT", `/api/orders/${orderId}/status`, { token, body: { status } });
}

async function myOrderIds(user: TestUser): Promise<string[]> {
  const response = await api("GET", "/api/orders/my", { token: user.token });
  expect(response.status, response.text).to.equal(200);
  return (response.body as { orderId: string }[]).map((o) => o.orderId);
}

describe("Order: POST /api/orders", () => {
  let admin: string;
  before(async () => {
    admin = await adminLogin();
  });

  it("answers 201 {orderId, status, totalAmount} with the total of current prices, and takes the stock", async () => {
    const pen = await stockedProduct(19.99, 10);
    const ink = await stockedProduct(0.1, 5);
    const user = await registeredUser("buyer");
    const response = await placeOrder(user.token, [
      { productId: pen, quantity: 3 },
      { productId: ink, quantity: 5 },
    ]);
    expect(response.status, response.text).to.equal(201);
    const body = response.body as Placed;
    expect(Object.keys(body).sort()).to.deep.equal(["orderId", "status", "totalAmount"]);
    expect(body.orderId).to.be.a("string").and.not.equal("");
    expect(body.status).to.equal("CREATED");
    expect(body.totalAmount).to.equal(60.47); // 3 × 19.99 + 5 × 0.10, in paise: 5997 + 50
    expect(response.text).to.contain('"totalAmount":60.47');
    expect([await stockOf(pen), await stockOf(ink)]).to.deep.equal([7, 0]);
    expect((await placed(user.token, [{ productId: pen, quantity: 3 }])).totalAmount).to.equal(59.97);
  });

  it("answers 401 without a token, and with a token that is not valid", async () => {
    const pen = await stockedProduct(1, 5);
    for (const token of [undefined, "not-a-token"]) {
      const response = await api("POST", "/api/orders", {
        ...(token === undefined ? {} : { token }),
        body: { items: [{ productId: pen, quantity: 1 }] },
      });
      expect(response.status).to.equal(401);
      expect(response.body).to.deep.equal({
        status: 401,
        code: "UNAUTHENTICATED",
        message: "a valid bearer token is required",
      });
    }
    expect(await stockOf(pen)).to.equal(5);
  });

  it("answers 400 to invalid requests and takes no stock", async () => {
    const pen = await stockedProduct(1, 5);
    const user = await registeredUser();
    const bodies: [string, unknown][] = [
      ["no items field", {}],
      ["no items", { items: [] }],
      ["quantity 0", { items: [{ productId: pen, quantity: 0 }] }],
      ["a negative quantity", { items: [{ productId: pen, quantity: -1 }] }],
      ["more than 1000 units on a line", { items: [{ productId: pen, quantity: 1001 }] }],
      ["a fractional quantity", { items: [{ productId: pen, quantity: 1.5 }] }],
      ["an empty product id", { items: [{ productId: "", quantity: 1 }] }],
      ["an operator object as product id", { items: [{ productId: { $ne: null }, quantity: 1 }] }],
      ["an operator object as quantity", { items: [{ productId: pen, quantity: { $gt: 0 } }] }],
      ["items that are not an array", { items: "all of them" }],
      ["an unknown field", { items: [{ productId: pen, quantity: 1 }], totalAmount: 0.01 }],
      ["an unknown line field", { items: [{ productId: pen, quantity: 1, price: 0.01 }] }],
      [
        "more than 50 lines",
        { items: Array.from({ length: 51 }, (_, i) => ({ productId: `p${i}`, quantity: 1 })) },
      ],
    ];
    for (const [what, body] of bodies) {
      const response = await api("POST", "/api/orders", { token: user.token, body });
      expect(response.status, `${what}: ${response.text}`).to.equal(400);
      expect((response.body as { code: string }).code, what).to.equal("INVALID_ARGUMENT");
    }
    const malformed = await api("POST", "/api/orders", {
      token: user.token,
      rawBody: '{"items": [',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: "request body is not valid JSON",
    });
    expect(await stockOf(pen)).to.equal(5);
    expect(await myOrderIds(user)).to.deep.equal([]);
  });

  it("answers 400 to a product on two lines", async () => {
    const pen = await stockedProduct(1, 5);
    const user = await registeredUser();
    const response = await placeOrder(user.token, [
      { productId: pen, quantity: 1 },
      { productId: pen, quantity: 1 },
    ]);
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: `duplicate product in items: ${pen} (one line per product)`,
    });
    expect(await stockOf(pen)).to.equal(5);
  });

  it("answers 404 naming an unknown product, and takes no stock of the others", async () => {
    const pen = await stockedProduct(1, 5);
    const user = await registeredUser();
    const response = await placeOrder(user.token, [
      { productId: pen, quantity: 1 },
      { productId: "no-such-product", quantity: 1 },
    ]);
    expect(response.status).to.equal(404);
    expect(response.body).to.deep.equal({
      status: 404,
      code: "NOT_FOUND",
      message: "product not found: no-such-product",
    });
    expect(await stockOf(pen)).to.equal(5);
    expect(await myOrderIds(user)).to.deep.equal([]);
  });

  it("answers 404 for a deleted (inactive) product", async () => {
    const gone = await stockedProduct(1, 5);
    expect((await api("DELETE", `/api/products/${gone}`, { token: admin })).status).to.equal(204);
    const user = await registeredUser();
    const response = await placeOrder(user.token, [{ productId: gone, quantity: 1 }]);
    expect(response.status).to.equal(404);
    expect(response.body).to.deep.equal({
      status: 404,
      code: "NOT_FOUND",
      message: `product not found: ${gone}`,
    });
  });

  it("answers 400 when a quantity exceeds the stock, writing no order and taking no stock", async () => {
    const pen = await stockedProduct(2.5, 3);
    const ink = await stockedProduct(1, 10);
    const user = await registeredUser();
    const response = await placeOrder(user.token, [
      { productId: ink, quantity: 2 },
      { productId: pen, quantity: 4 },
    ]);
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: `insufficient stock for product ${pen}`,
    });
    expect([await stockOf(pen), await stockOf(ink)]).to.deep.equal([3, 10]);
    expect(await myOrderIds(user)).to.deep.equal([]);
    expect((await placed(user.token, [{ productId: pen, quantity: 3 }])).totalAmount).to.equal(7.5);
    expect(await stockOf(pen)).to.equal(0);
  });

  it("keeps the unit price of the placement when the product's price changes later", async () => {
    const pen = await stockedProduct(19.99, 10);
    const user = await registeredUser();
    const { orderId } = await placed(user.token, [{ productId: pen, quantity: 2 }]);
    const update = await api("PUT", `/api/products/${pen}`, { token: admin, body: { price: 25 } });
    expect(update.status, update.text).to.equal(200);
    const order = (await api("GET", `/api/orders/${orderId}`, { token: user.token })).body as OrderBody;
    expect(order.totalAmount).to.equal(39.98);
    expect(order.items).to.deep.equal([{ productId: pen, quantity: 2, price: 19.99 }]);
    expect((await placed(user.token, [{ productId: pen, quantity: 2 }])).totalAmount).to.equal(50);
  });
});

describe("Order: reading orders", () => {
  let admin: string;
  let pen: string;
  let alice: TestUser;
  let bob: TestUser;
  before(async () => {
    admin = await adminLogin();
    pen = await stockedProduct(19.99, 100);
    [alice, bob] = await Promise.all([registeredUser("alice"), registeredUser("bob")]);
  });

  it("GET /api/orders/{orderId}: 200 with exactly the contract's fields for the owner and for an admin", async () => {
    const { orderId } = await placed(alice.token, [{ productId: pen, quantity: 3 }]);
    for (const token of [alice.token, admin]) {
      const response = await api("GET", `/api/orders/${orderId}`, { token });
      expect(response.status).to.equal(200);
      const order = response.body as OrderBody;
      expect(Object.keys(order).sort()).to.deep.equal([
        "customerId",
        "items",
        "orderDate",
        "orderId",
        "status",
        "totalAmount",
      ]);
      expect(order).to.deep.include({
        orderId,
        customerId: alice.email,
        status: "CREATED",
        totalAmount: 59.97,
      });
      expect(order.items).to.deep.equal([{ productId: pen, quantity: 3, price: 19.99 }]);
      expect(order.orderDate).to.match(timestamp);
    }
  });

  it("GET /api/orders/{orderId}: 403 for another customer's order, 404 for an unknown one, 401 without a token", async () => {
    const { orderId } = await placed(alice.token, [{ productId: pen, quantity: 1 }]);
    const other = await api("GET", `/api/orders/${orderId}`, { token: bob.token });
    expect(other.status).to.equal(403);
    expect(other.body).to.deep.equal({
      status: 403,
      code: "PERMISSION_DENIED",
      message: "this order belongs to another customer",
    });
    const unknown = await api("GET", "/api/orders/ord_does-not-exist", { token: alice.token });
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ status: 404, code: "NOT_FOUND", message: "order not found" });
    expect((await api("GET", `/api/orders/${orderId}`)).status).to.equal(401);
  });

  it("GET /api/orders/my: a bare array of the caller's orders only, newest first", async () => {
    const carol = await registeredUser("carol");
    expect((await api("GET", "/api/orders/my", { token: carol.token })).body).to.deep.equal([]);
    const first = await placed(carol.token, [{ productId: pen, quantity: 1 }]);
    await placed(bob.token, [{ productId: pen, quantity: 1 }]);
    const second = await placed(carol.token, [{ productId: pen, quantity: 2 }]);
    const response = await api("GET", "/api/orders/my", { token: carol.token });
    expect(response.status).to.equal(200);
    const mine = response.body as {
      orderId: string;
      status: string;
      totalAmount: number;
      orderDate: string;
    }[];
    expect(mine.map((o) => [o.orderId, o.status, o.totalAmount])).to.deep.equal([
      [second.orderId, "CREATED", 39.98],
      [first.orderId, "CREATED", 19.99],
    ]);
    for (const order of mine) {
      expect(Object.keys(order).sort()).to.deep.equal(["orderDate", "orderId", "status", "totalAmount"]);
      expect(order.orderDate).to.match(timestamp);
    }
    expect((await api("GET", "/api/orders/my")).status).to.equal(401);
  });

  it("GET /api/orders: every order for an admin, newest first, as {orderId, customerId, status, totalAmount}", async () => {
    const older = await placed(alice.token, [{ productId: pen, quantity: 1 }]);
    const newer = await placed(bob.token, [{ productId: pen, quantity: 2 }]);
    const response = await api("GET", "/api/orders", { token: admin });
    expect(response.status).to.equal(200);
    const all = response.body as {
      orderId: string;
      customerId: string;
      status: string;
      totalAmount: number;
    }[];
    for (const order of all) {
      expect(Object.keys(order).sort()).to.deep.equal(["customerId", "orderId", "status", "totalAmount"]);
    }
    expect(all).to.deep.include({
      orderId: newer.orderId,
      customerId: bob.email,
      status: "CREATED",
      totalAmount: 39.98,
    });
    const ids = all.map((o) => o.orderId);
    expect(ids.indexOf(newer.orderId)).to.be.below(ids.indexOf(older.orderId));
  });

  it("GET /api/orders: 403 for a customer, 401 without a token", async () => {
    const response = await api("GET", "/api/orders", { token: alice.token });
    expect(response.status).to.equal(403);
    expect(response.body).to.deep.equal({
      status: 403,
      code: "PERMISSION_DENIED",
      message: "admin role required",
    });
    expect((await api("GET", "/api/orders")).status).to.equal(401);
  });
});

describe("Order: PUT /api/orders/{orderId}/status", () => {
  let admin: string;
  let pen: string;
  let user: TestUser;
  before(async () => {
    admin = await adminLogin();
    pen = await stockedProduct(5, 1000);
    user = await registeredUser();
  });

  const statusOf = async (orderId: string): Promise<string> =>
    ((await api("GET", `/api/orders/${orderId}`, { token: admin })).body as OrderBody).status;

  it("moves CREATED → CONFIRMED → CANCELLED with 200 {message}, and cancelling returns the stock", async () => {
    const before = await stockOf(pen);
    const { orderId } = await placed(user.token, [{ productId: pen, quantity: 7 }]);
    expect(await stockOf(pen)).to.equal(before - 7);
    const confirm = await setStatus(orderId, "CONFIRMED", admin);
    expect(confirm.status).to.equal(200);
    expect(confirm.body).to.deep.equal({ message: "order status updated" });
    expect(await statusOf(orderId)).to.equal("CONFIRMED");
    const cancel = await setStatus(orderId, "CANCELLED", admin);
    expect(cancel.status).to.equal(200);
    expect(await statusOf(orderId)).to.equal("CANCELLED");
    expect(await stockOf(pen)).to.equal(before);
    const mine = (await api("GET", "/api/orders/my", { token: user.token })).body as Placed[];
    expect(mine.find((o) => o.orderId === orderId)?.status).to.equal("CANCELLED");
  });

  it("answers 409 to every other move and changes nothing", async () => {
    const created = (await placed(user.token, [{ productId: pen, quantity: 1 }])).orderId;
    const confirmed = (await placed(user.token, [{ productId: pen, quantity: 1 }])).orderId;
    expect((await setStatus(confirmed, "CONFIRMED", admin)).status).to.equal(200);
    const cancelled = (await placed(user.token, [{ productId: pen, quantity: 1 }])).orderId;
    expect((await setStatus(cancelled, "CONFIRMED", admin)).status).to.equal(200);
    expect((await setStatus(cancelled, "CANCELLED", admin)).status).to.equal(200);
    const stock = await stockOf(pen);
    const refused: [string, string, string][] = [
      [created, "CREATED", "CANCELLED"],
      [confirmed, "CONFIRMED", "CONFIRMED"],
      [cancelled, "CANCELLED", "CONFIRMED"],
      [cancelled, "CANCELLED", "CANCELLED"],
    ];
    for (const [orderId, from, to] of refused) {
      const response = await setStatus(orderId, to, admin);
      expect(response.status, `${from} → ${to}`).to.equal(409);
      expect(response.body).to.deep.equal({
        status: 409,
        code: "ALREADY_EXISTS",
        message: `invalid status transition: ${from} to ${to}`,
      });
      expect(await statusOf(orderId)).to.equal(from);
    }
    expect(await stockOf(pen)).to.equal(stock); // a refused cancel returns nothing
  });

  it("answers 400 to a status that is not CONFIRMED or CANCELLED (CREATED included)", async () => {
    const { orderId } = await placed(user.token, [{ productId: pen, quantity: 1 }]);
    for (const status of ["SHIPPED", "CREATED", "confirmed", ""]) {
      const response = await setStatus(orderId, status, admin);
      expect(response.status, status).to.equal(400);
      expect((response.body as { code: string }).code).to.equal("INVALID_ARGUMENT");
    }
    const operator = await api("PUT", `/api/orders/${orderId}/status`, {
      token: admin,
      body: { status: { $ne: "x" } },
    });
    expect(operator.status).to.equal(400);
    expect(await statusOf(orderId)).to.equal("CREATED");
  });

  it("answers 404 for an unknown order, 403 for a customer (even the owner), 401 without a token", async () => {
    const unknown = await setStatus("ord_does-not-exist", "CONFIRMED", admin);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ status: 404, code: "NOT_FOUND", message: "order not found" });
    const { orderId } = await placed(user.token, [{ productId: pen, quantity: 1 }]);
    const own = await setStatus(orderId, "CONFIRMED", user.token);
    expect(own.status).to.equal(403);
    expect(own.body).to.deep.equal({
      status: 403,
      code: "PERMISSION_DENIED",
      message: "admin role required",
    });
    expect(
      (await api("PUT", `/api/orders/${orderId}/status`, { body: { status: "CONFIRMED" } })).status,
    ).to.equal(401);
    expect(await statusOf(orderId)).to.equal("CREATED");
  });
});

describe("Order: concurrent buyers of a scarce product", function () {
  this.timeout(120_000);
  const buyers: TestUser[] = [];
  const stock = 20;
  const buyerCount = 50;
  let admin: string;
  let pen: string;
  const won: { orderId: string; buyer: TestUser }[] = [];

  before(async () => {
    admin = await adminLogin();
    pen = await stockedProduct(19.99, stock);
    // Registration hashes passwords (argon2id): a few at a time.
    for (let i = 0; i < buyerCount; i += 10) {
      buyers.push(...(await Promise.all(Array.from({ length: 10 }, () => registeredUser("racer")))));
    }
  });

  it(`sells exactly ${stock} units to ${buyerCount} buyers racing through the edge; the rest get 400`, async () => {
    const responses = await Promise.all(
      buyers.map((buyer) => placeOrder(buyer.token, [{ productId: pen, quantity: 1 }])),
    );
    responses.forEach((response, i) => {
      const buyer = buyers[i];
      if (response.status === 201 && buyer !== undefined) {
        won.push({ orderId: (response.body as Placed).orderId, buyer });
      }
    });
    const statuses = responses.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      statuses.join(","),
    ).to.have.length(stock);
    const refused = responses.filter((r) => r.status !== 201);
    expect(refused).to.have.length(buyerCount - stock);
    for (const response of refused) {
      expect(response.body).to.deep.equal({
        status: 400,
        code: "INVALID_ARGUMENT",
        message: `insufficient stock for product ${pen}`,
      });
    }
    expect(await stockOf(pen)).to.equal(0);
    for (const { orderId, buyer } of won) expect(await myOrderIds(buyer)).to.deep.equal([orderId]);
  });

  it("applies every event of the race once: one ORDER_PLACED notice per sale, one out-of-stock notice", async () => {
    expect(won).to.have.length(stock);
    // Notifications come through the event bus, so wait for every expected one, then count: a
    // second copy of an event (a duplicate publication under another id, or an effect applied
    // twice by two replicas) would show up as a second notice.
    for (const { orderId, buyer } of won) {
      await awaitMyNotification(buyer.token, `ORDER_PLACED for ${orderId}`, (n) =>
        n.message.includes(orderId),
      );
    }
    const outOfStock = (n: { eventType: string; message: string }): boolean =>
      n.eventType === "PRODUCT_STOCK_UPDATED" && n.message.includes(`(${pen})`);
    await awaitMyNotification(admin, `out of stock: ${pen}`, outOfStock);
    for (const { orderId, buyer } of won) {
      const notices = await myNotifications(buyer.token);
      expect(notices.filter((n) => n.eventType === "ORDER_PLACED").map((n) => n.message)).to.deep.equal([
        `Your order ${orderId} for ₹19.99 has been placed.`,
      ]);
    }
    const winners = new Set(won.map(({ buyer }) => buyer.email));
    for (const loser of buyers.filter((b) => !winners.has(b.email))) {
      const notices = await myNotifications(loser.token);
      expect(notices.filter((n) => n.eventType === "ORDER_PLACED")).to.deep.equal([]);
    }
    // Every admin gets the notice; this admin's own listing holds exactly one.
    expect((await myNotifications(admin)).filter(outOfStock)).to.have.length(1);
  });

  it("returns exactly k units when k of those orders are cancelled, and sells them again", async () => {
    expect(won).to.have.length(stock);
    const k = 5;
    const cancelled = won.slice(0, k);
    await Promise.all(
      cancelled.map(async ({ orderId }) => {
        expect((await setStatus(orderId, "CONFIRMED", admin)).status).to.equal(200);
        expect((await setStatus(orderId, "CANCELLED", admin)).status).to.equal(200);
      }),
    );
    expect(await stockOf(pen)).to.equal(k);
    // A second cancellation is refused and returns nothing more.
    expect((await setStatus(cancelled[0]?.orderId ?? "", "CANCELLED", admin)).status).to.equal(409);
    expect(await stockOf(pen)).to.equal(k);
    const responses = await Promise.all(
      buyers.slice(0, 2 * k).map((buyer) => placeOrder(buyer.token, [{ productId: pen, quantity: 1 }])),
    );
    expect(responses.filter((r) => r.status === 201)).to.have.length(k);
    expect(await stockOf(pen)).to.equal(0);
  });
});

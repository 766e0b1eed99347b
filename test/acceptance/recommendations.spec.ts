/**
 * Recommendations learnt from orders, through the edge. The deployment is shared with the other
 * suites, so the scripted orders use products of their own: what was bought with them is only
 * what this script bought, and asked for no more than that many, an answer is exact. (Beyond
 * it, the best sellers of the shared catalog fill the list; only their shape is checked here.)
 *
 *   o1 ann: p1 p2 p3    o2 ben: p1 p2    o3 cat: p1 p3 p5    o4 ben: p2 p4    o5 cat: p1 p6
 *
 * Then p6 is deleted and o2 cancelled. Ties go to the lower id, so expectations sort ids that
 * tie. That a batch delivered again counts once is proven where a delivery can be repeated on
 * purpose: test/crash/recommendation-crash.spec.ts.
 */
import { expect } from "chai";
import { adminLogin, registeredUser, type TestUser } from "./support/accounts.js";
import { api, type ApiResponse } from "./support/api.js";
import { createdProduct, productsOfBrand, uniqueLabel, type ProductSummary } from "./support/catalog.js";
import { pollUntil } from "./support/polling.js";

/** How long the consumer may take to show what the orders did. */
const settleMs = 60_000;

const productNotFound = { status: 404, code: "NOT_FOUND", message: "product not found" };

const byId = (ids: readonly string[]): string[] => [...ids].sort();

async function placed(user: TestUser, productIds: readonly string[]): Promise<string> {
  const items = productIds.map((productId) => ({ productId, quantity: 1 }));
  const response = await api("POST", "/api/orders", { token: user.token, body: { items } });
  expect(response.status, response.text).to.equal(201);
  return (response.body as { orderId: string }).orderId;
}

async function recommendationsOf(productId: string, size: number): Promise<ProductSummary[]> {
  const response = await api(
    "GET",
    `/api/products/${encodeURIComponent(productId)}/recommendations?size=${size}`,
  );
  expect(response.status, response.text).to.equal(200);
  return response.body as ProductSummary[];
}

async function mine(user: TestUser, size: number): Promise<ProductSummary[]> {
  const response = await api("GET", `/api/recommendations/me?size=${size}`, { token: user.token });
  expect(response.status, response.text).to.equal(200);
  return response.body as ProductSummary[];
}

/** Polls `read` until its ids are `expected`; fails with the last ids seen. */
async function shows(
  what: string,
  read: () => Promise<ProductSummary[]>,
  expected: readonly string[],
): Promise<void> {
  let last: string[] = [];
  try {
    await pollUntil(
      what,
      async () => {
        last = (await read()).map((p) => p.id);
        return JSON.stringify(last) === JSON.stringify(expected) ? true : undefined;
      },
      settleMs,
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}; expected ${JSON.stringify(expected)}, last seen ${JSON.stringify(last)}`,
      {
        cause: error,
      },
    );
  }
}

describe("Recommendations: GET /api/products/{productId}/recommendations, GET /api/recommendations/me", function () {
  this.timeout(4 * settleMs);
  const brand = uniqueLabel("Bought together");
  let p: Record<1 | 2 | 3 | 4 | 5 | 6, string>;
  let ann: TestUser;
  let cat: TestUser;
  let admin: string;
  let cancelled: string;

  before(async () => {
    admin = await adminLogin();
    const ids = [];
    for (let n = 1; n <= 6; n += 1) {
      ids.push(await createdProduct({ brand, name: `${brand} ${n}`, categoryId: "books", stock: 20 }));
    }
    const [p1, p2, p3, p4, p5, p6] = ids as [string, string, string, string, string, string];
    p = { 1: p1, 2: p2, 3: p3, 4: p4, 5: p5, 6: p6 };
    const ben = await registeredUser("ben");
    [ann, cat] = [await registeredUser("ann"), await registeredUser("cat")];
    await placed(ann, [p1, p2, p3]);
    cancelled = await placed(ben, [p1, p2]);
    await placed(cat, [p1, p3, p5]);
    await placed(ben, [p2, p4]);
    await placed(cat, [p1, p6]);
  });

  it("ranks the products bought with one by orders, ties to the lower id, shaped like the catalog list's items", async () => {
    // With p1: p2 (o1 o2), p3 (o1 o3), p5 (o3), p6 (o5).
    const expected = [...byId([p[2], p[3]]), ...byId([p[5], p[6]])];
    await shows("p1's co-purchases", () => recommendationsOf(p[1], 4), expected);
    const listed = (await productsOfBrand(brand, "&size=100")).content;
    const items = await recommendationsOf(p[1], 4);
    expect(items).to.deep.equal(expected.map((id) => listed.find((item) => item.id === id)));
    // With p4: only p2 (o4, which may be consumed after the others: on Kafka each order's
    // events go to a partition of their own); then best sellers, never p4 itself, each once.
    await shows("p4's co-purchase", () => recommendationsOf(p[4], 1), [p[2]]);
    const p4 = await recommendationsOf(p[4], 5);
    expect(p4[0]?.id).to.equal(p[2]);
    const ids = p4.map((item) => item.id);
    expect(ids).to.not.include(p[4]);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids.length).to.be.at.most(5);
  });

  it("recommends to a customer what was bought with their purchases, leaving out what they bought", async () => {
    // ann bought p1 p2 p3. p5 comes with p1 (o3) and with p3 (o3): 2; p4 with p2 (o4): 1; p6 with p1 (o5): 1.
    await shows("ann's recommendations", () => mine(ann, 3), [p[5], ...byId([p[4], p[6]])]);
    // cat bought p1 p3 p5 p6: p2 comes with p1 (o1 o2) and with p3 (o1): 3.
    await shows("cat's recommendations", () => mine(cat, 1), [p[2]]);
  });

  it("stops naming a deleted product and stops counting a cancelled order", async () => {
    const deleted = await api("DELETE", `/api/products/${p[6]}`, { token: admin });
    expect(deleted.status, deleted.text).to.equal(204);
    await shows("p1's co-purchases without p6", () => recommendationsOf(p[1], 3), [
      ...byId([p[2], p[3]]),
      p[5],
    ]);
    await shows("ann's recommendations without p6", () => mine(ann, 2), [p[5], p[4]]);

    for (const status of ["CONFIRMED", "CANCELLED"]) {
      const moved = await api("PUT", `/api/orders/${cancelled}/status`, { token: admin, body: { status } });
      expect(moved.status, moved.text).to.equal(200);
    }
    // With p1 now: p3 (o1 o3), then p2 (o1) and p5 (o3).
    await shows("p1's co-purchases without o2", () => recommendationsOf(p[1], 3), [
      p[3],
      ...byId([p[2], p[5]]),
    ]);
    const all = (await recommendationsOf(p[1], 20)).map((item) => item.id);
    expect(all).to.not.include(p[1]);
    expect(all).to.not.include(p[6]);
    const deletedOne = await api("GET", `/api/products/${p[6]}/recommendations`);
    expect(deletedOne.status).to.equal(404);
    expect(deletedOne.body).to.deep.equal(productNotFound);
  });

  it("answers 404 for an unknown product, 400 for a size out of 1..20, 401 for /me without a token", async () => {
    const unknown = await api("GET", "/api/products/no-such-product/recommendations");
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal(productNotFound);
    for (const size of ["0", "21", "x"]) {
      const refused: ApiResponse = await api("GET", `/api/products/${p[1]}/recommendations?size=${size}`);
      expect(refused.status, `size=${size}: ${refused.text}`).to.equal(400);
      expect((refused.body as { code: string }).code).to.equal("INVALID_ARGUMENT");
    }
    const anonymous = await api("GET", "/api/recommendations/me");
    expect(anonymous.status).to.equal(401);
    // Four when the size is not given.
    expect(await recommendationsOf(p[1], 4)).to.deep.equal(
      (await api("GET", `/api/products/${p[1]}/recommendations`)).body,
    );
  });
});

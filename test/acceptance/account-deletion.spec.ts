import { expect } from "chai";
import { adminLogin, registeredAgain, registeredUser, type TestUser } from "./support/accounts.js";
import { api } from "./support/api.js";
import { createdProduct } from "./support/catalog.js";
import { pollUntil } from "./support/polling.js";

/** How long a deletion may take to reach every service (ADR 0034). */
const revocationDeadlineMs = 10_000;

async function userIdOf(user: TestUser): Promise<number> {
  const me = await api("GET", "/api/users/me", { token: user.token });
  expect(me.status, me.text).to.equal(200);
  return (me.body as { id: number }).id;
}

async function deleteUser(userId: number): Promise<void> {
  const response = await api("DELETE", `/api/users/${userId}`, { token: await adminLogin() });
  expect(response.status, response.text).to.equal(204);
}

/**
 * A service may run as several replicas behind the edge, each learning of the deletion on its
 * own: refused means refused by all of them, so this many answers in a row must be 401.
 */
const refusalsInARow = 6;

/** Polls until `call` answers 401 `refusalsInARow` times in a row, failing at the deadline. */
async function refusedSoon(what: string, call: () => ReturnType<typeof api>): Promise<void> {
  let inARow = 0;
  await pollUntil(
    `${what} to answer 401 ${refusalsInARow} times in a row`,
    async () => {
      inARow = (await call()).status === 401 ? inARow + 1 : 0;
      return inARow >= refusalsInARow ? true : undefined;
    },
    revocationDeadlineMs,
  );
}

describe("Deleting a user revokes their tokens", () => {
  it("refuses the deleted user's token everywhere within seconds", async () => {
    const user = await registeredUser("deleted");
    const productId = await createdProduct({ stock: 10 });
    const placed = await api("POST", "/api/orders", {
      token: user.token,
      body: { items: [{ productId, quantity: 1 }] },
    });
    expect(placed.status, placed.text).to.equal(201);
    await deleteUser(await userIdOf(user));

    const token = user.token;
    await refusedSoon("GET /api/orders/my", () => api("GET", "/api/orders/my", { token }));
    await refusedSoon("GET /api/notifications", () => api("GET", "/api/notifications", { token }));
    await refusedSoon("GET /api/users/me", () => api("GET", "/api/users/me", { token }));
    await refusedSoon("POST /api/orders", () =>
      api("POST", "/api/orders", { token, body: { items: [{ productId, quantity: 1 }] } }),
    );
    const refused = await api("GET", "/api/orders/my", { token });
    expect(refused.body).to.deep.equal({
      status: 401,
      code: "UNAUTHENTICATED",
      message: "authentication required",
    });
  });

  it("never lets a token reach the account that registers the freed email later", async () => {
    const first = await registeredUser("reused");
    const added = await api("POST", "/api/users/addresses", {
      token: first.token,
      body: { street: "1 Old Road", city: "Pune", state: "MH", pincode: "411001" },
    });
    expect(added.status, added.text).to.equal(201);
    await deleteUser(await userIdOf(first));

    // At once, before any event could have arrived anywhere: the new person registers.
    const second = { ...first, fullName: "Someone Else", token: await registeredAgain(first.email) };
    const secondAddress = await api("POST", "/api/users/addresses", {
      token: second.token,
      body: { street: "2 New Road", city: "Kochi", state: "KL", pincode: "682001" },
    });
    expect(secondAddress.status, secondAddress.text).to.equal(201);

    // The old token never sees the new person's profile or addresses: not once, from the start.
    const deadline = Date.now() + 3_000;
    do {
      const me = await api("GET", "/api/users/me", { token: first.token });
      expect(me.status, me.text).to.equal(401);
      const addresses = await api("GET", "/api/users/addresses", { token: first.token });
      expect(addresses.status, addresses.text).to.equal(401);
    } while (Date.now() < deadline);

    // The new token works, for the new person only.
    const me = await api("GET", "/api/users/me", { token: second.token });
    expect(me.status, me.text).to.equal(200);
    expect(me.body).to.include({ email: first.email, fullName: "Someone Else" });
    const addresses = await api("GET", "/api/users/addresses", { token: second.token });
    expect(addresses.status, addresses.text).to.equal(200);
    expect((addresses.body as { street: string }[]).map((a) => a.street)).to.deep.equal(["2 New Road"]);
    const orders = await api("GET", "/api/orders/my", { token: second.token });
    expect(orders.status, orders.text).to.equal(200);
  });
});

/**
 * The typed client (`@commerce/client`, client/) against the edge at BASE_URL, as an integrator's
 * app uses it: every call below goes through it alone, and every body is read through the types
 * generated from the API's OpenAPI document, so this file compiles only while those types match
 * what the edges answer (a success body's fields, a bare array, a 204 without a body, the error
 * body narrowed by its status).
 */
import { expect } from "chai";
import { createCommerceClient, type CommerceClient, type CommerceError } from "@commerce/client";
import { registration } from "./support/accounts.js";
import { uniqueLabel } from "./support/catalog.js";
import { acceptanceEnvironment } from "./support/environment.js";
import { pollUntil } from "./support/polling.js";

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** What every call of the client answers: the body of its success, or the error body. */
type Answer<Data> =
  | { readonly data: Data; readonly error?: never; readonly response: Response }
  | { readonly data?: never; readonly error: CommerceError; readonly response: Response };

/** The success body, after checking the exact status. */
function succeeded<Data>(answer: Answer<Data>, status: number): Data {
  expect(answer.response.status, JSON.stringify(answer.error)).to.equal(status);
  if (answer.error !== undefined) throw new Error(`${answer.error.code}: ${answer.error.message}`);
  return answer.data;
}

function client(token?: string): CommerceClient {
  const { baseUrl } = acceptanceEnvironment();
  return createCommerceClient(token === undefined ? { baseUrl } : { baseUrl, token });
}

async function signedIn(email: string, password: string): Promise<CommerceClient> {
  const login = succeeded(await client().POST("/api/auth/login", { body: { email, password } }), 200);
  expect(login.type).to.equal("Bearer");
  return client(login.token);
}

describe("Typed client (@commerce/client) through the edge", () => {
  it("buys and pays: register, log in, the admin adds a product, the customer finds, orders and pays it, the order reads CONFIRMED", async () => {
    const { adminEmail, adminPassword } = acceptanceEnvironment();
    const account = registration("typed");
    const registered = succeeded(await client().POST("/api/auth/register", { body: account }), 201);
    expect(registered).to.deep.equal({ message: "user registered successfully" });
    const customer = await signedIn(account.email, account.password);
    const me = succeeded(await customer.GET("/api/users/me"), 200);
    expect(me).to.deep.include({ email: account.email, fullName: account.fullName, role: "CUSTOMER" });

    const admin = await signedIn(adminEmail, adminPassword);
    const draft = {
      name: uniqueLabel("Typed pen"),
      description: "Blue ink",
      price: 19.99,
      stock: 10,
      brand: uniqueLabel("Typed brand"),
      categoryId: "books",
    };
    const created = succeeded(await admin.POST("/api/products", { body: draft }), 201);
    expect(created).to.deep.equal({ message: "product created" });

    const page = succeeded(
      await customer.GET("/api/products", { params: { query: { brand: draft.brand } } }),
      200,
    );
    expect(page.totalElements).to.equal(1);
    expect(page.totalPages).to.equal(1);
    const [summary] = page.content;
    if (summary === undefined) throw new Error("the product is not listed");
    expect(summary).to.deep.equal({
      id: summary.id,
      name: draft.name,
      price: 19.99,
      stock: 10,
      brand: draft.brand,
      category: "Books",
    });
    const product = succeeded(
      await customer.GET("/api/products/{productId}", { params: { path: { productId: summary.id } } }),
      200,
    );
    expect(product).to.deep.equal({
      id: summary.id,
      name: draft.name,
      description: "Blue ink",
      price: 19.99,
      stock: 10,
      sku: product.sku,
      brand: draft.brand,
      category: "Books",
    });
    expect(product.sku).to.match(/^BOOK-[0-9A-Z]{8}$/);

    const placed = succeeded(
      await customer.POST("/api/orders", { body: { items: [{ productId: product.id, quantity: 2 }] } }),
      201,
    );
    expect(placed).to.deep.equal({ orderId: placed.orderId, status: "CREATED", totalAmount: 39.98 });
    const { orderId } = placed;

    const payment = succeeded(
      await customer.POST("/api/payments/create", { body: { orderId, amount: placed.totalAmount } }),
      200,
    );
    expect(payment).to.deep.equal({
      providerOrderId: payment.providerOrderId,
      amount: 39.98,
      currency: "INR",
    });
    expect(payment.providerOrderId).to.match(/^order_[0-9A-Za-z]{14}$/);

    const checkout = succeeded(
      await customer.POST("/api/payments/sandbox/checkout", {
        body: { providerOrderId: payment.providerOrderId, outcome: "paid" },
      }),
      200,
    );
    expect(checkout).to.deep.include({ status: "SUCCESS", message: "callback processed" });
    expect(checkout.providerPaymentId).to.match(/^pay_[0-9A-Za-z]{14}$/);

    const order = await pollUntil(`order ${orderId} to read CONFIRMED`, async () => {
      const read = succeeded(
        await customer.GET("/api/orders/{orderId}", { params: { path: { orderId } } }),
        200,
      );
      return read.status === "CONFIRMED" ? read : undefined;
    });
    expect(order).to.deep.equal({
      orderId,
      customerId: account.email,
      status: "CONFIRMED",
      orderDate: order.orderDate,
      totalAmount: 39.98,
      items: [{ productId: product.id, quantity: 2, price: 19.99 }],
    });
    expect(order.orderDate).to.match(timestamp);

    // Bare arrays: the caller's orders and payments.
    const myOrders = succeeded(await customer.GET("/api/orders/my"), 200);
    expect(myOrders.map((o) => [o.orderId, o.status, o.totalAmount])).to.deep.equal([
      [orderId, "CONFIRMED", 39.98],
    ]);
    const payments = succeeded(await customer.GET("/api/payments/my"), 200);
    expect(payments).to.have.length(1);
    const [paid] = payments;
    expect(paid).to.deep.equal({
      paymentId: paid?.paymentId,
      orderId,
      amount: 39.98,
      status: "SUCCESS",
      createdAt: paid?.createdAt,
    });
    expect(paid?.createdAt).to.match(timestamp);

    // 204 without a body: the admin withdraws the product, and the customer no longer finds it.
    const removed = await admin.DELETE("/api/products/{productId}", {
      params: { path: { productId: product.id } },
    });
    expect(removed.response.status).to.equal(204);
    expect(removed.data).to.equal(undefined);
    expect(removed.error).to.equal(undefined);
    const gone = await customer.GET("/api/products/{productId}", {
      params: { path: { productId: product.id } },
    });
    expect(gone.response.status).to.equal(404);
    expect(gone.error).to.deep.equal({ status: 404, code: "NOT_FOUND", message: "product not found" });
  });

  it("types the error body: a status narrows the code callers branch on (404 for an unknown order, 409 for a taken email, 401 without a token)", async () => {
    const account = registration("typed");
    succeeded(await client().POST("/api/auth/register", { body: account }), 201);
    const customer = await signedIn(account.email, account.password);

    const unknown = await customer.GET("/api/orders/{orderId}", {
      params: { path: { orderId: "ord_does_not_exist" } },
    });
    expect(unknown.data).to.equal(undefined);
    expect(unknown.response.status).to.equal(404);
    expect(unknown.error).to.deep.equal({ status: 404, code: "NOT_FOUND", message: "order not found" });
    if (unknown.error?.status === 404) {
      // The document lists one code for a 404: the type says so.
      const code: "NOT_FOUND" = unknown.error.code;
      expect(code).to.equal("NOT_FOUND");
    }

    const again = await client().POST("/api/auth/register", { body: account });
    expect(again.response.status).to.equal(409);
    expect(again.error).to.deep.equal({
      status: 409,
      code: "ALREADY_EXISTS",
      message: "an account with this email already exists",
    });
    if (again.error?.status === 409) {
      const code: "ALREADY_EXISTS" | "ABORTED" = again.error.code;
      expect(code).to.equal("ALREADY_EXISTS");
    }

    const anonymous = await client().GET("/api/orders/my");
    expect(anonymous.response.status).to.equal(401);
    expect(anonymous.error).to.deep.equal({
      status: 401,
      code: "UNAUTHENTICATED",
      message: "a valid bearer token is required",
    });
  });
});

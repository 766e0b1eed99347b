/**
 * Paying at a gateway's hosted checkout from the web app, in a real browser: the platform runs
 * embedded (exactly what `npm start` runs) with PAYMENT_GATEWAY_URL set to a fake gateway on
 * loopback, the only thing here outside our control. The customer opens an unpaid order, is
 * sent to the gateway's checkout page with a form post, leaves it once without paying, then
 * pays: the gateway delivers its signed callback to the platform and posts the browser back,
 * and the order page shows the order confirmed by that callback.
 *
 * It starts its own platform, so npm test runs it in a step of its own (scripts/test.ts). It
 * needs the deployment's JWT_SECRET, ADMIN_* and PAYMENT_* secrets, like the journeys.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { startFakeGateway, type FakeGateway } from "@commerce/payment/testing";
import { startPlatformProcess, type PlatformProcess } from "#testing/platform-process.js";
import { registeredUser } from "../acceptance/support/accounts.js";
import { api } from "../acceptance/support/api.js";
import { createdProduct, uniqueLabel } from "../acceptance/support/catalog.js";
import { definitionsIn } from "../web/support/definitions.js";
import { rupees } from "../web/support/indian-numbers.js";
import { expectAccessible, expectQuietAndLocal } from "../web/support/page-checks.js";
import { useSuiteBrowser } from "../web/support/suite-browser.js";

const keyId = "rzp_test_Hq4Jd8Tn2wLp0Z";

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`${name} is needed (npm test sets it)`);
  return value;
}

describe("Paying at a gateway's hosted checkout from the web app (a fake gateway on loopback)", () => {
  const browser = useSuiteBrowser();
  let gateway: FakeGateway | undefined;
  let platform: PlatformProcess | undefined;
  let dataDir = "";

  before(async function () {
    this.timeout(120_000);
    gateway = await startFakeGateway({ keyId, keySecret: required("PAYMENT_KEY_SECRET") });
    dataDir = await mkdtemp(join(tmpdir(), "hosted-checkout-"));
    platform = await startPlatformProcess({
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      PAYMENT_GATEWAY_URL: gateway.url,
      PAYMENT_KEY_ID: keyId,
    });
    gateway.deliverCallbacksTo({
      url: `${platform.baseUrl}/api/payments/callback`,
      webhookSecret: required("PAYMENT_WEBHOOK_SECRET"),
    });
    // The shared acceptance helpers call the deployment at BASE_URL: this suite's own platform.
    process.env["BASE_URL"] = platform.baseUrl;
  });

  after(async () => {
    await platform?.stop();
    await gateway?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("sends the customer to the gateway's page, takes them back when they leave it, and shows the order confirmed by the gateway's callback once they pay", async function () {
    this.timeout(120_000);
    if (gateway === undefined || platform === undefined) throw new Error("started by the before hook");
    const { url: gatewayUrl, callbacks, orders } = gateway;
    const { baseUrl } = platform;
    const price = 1299;
    const productId = await createdProduct({ name: "Kettle", price, stock: 4, brand: uniqueLabel("Brew") });
    const customer = await registeredUser("hosted");
    const placed = await api("POST", "/api/orders", {
      token: customer.token,
      body: { items: [{ productId, quantity: 2 }] },
    });
    expect(placed.status, placed.text).to.equal(201);
    const orderId = (placed.body as { orderId: string }).orderId;
    const total = 2 * price;

    const recorded = await browser().openPage("desktop");
    const { page } = recorded;
    const at = (path: string): string => new URL(path, baseUrl).href;
    await page.goto(at("/login"));
    await page.getByLabel("Email").fill(customer.email);
    await page.getByLabel("Password").fill(customer.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My orders" }).waitFor();

    // The app's pages may post a form to the gateway's origin, and to no other.
    const orderPage = await page.goto(at(`/orders/${orderId}`));
    expect(orderPage?.headers()["content-security-policy"]).to.include(`form-action 'self' ${gatewayUrl};`);
    const pay = page.getByRole("button", { name: `Pay ${rupees(total)}` });

    // To the gateway's checkout, and back without paying.
    await pay.click();
    await page.waitForURL(`${gatewayUrl}/v1/checkout/embedded`);
    await page.getByRole("heading", { name: "Test gateway checkout" }).waitFor();
    await page.getByText(`Order ${orderId}: INR ${total}`).waitFor();
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL(at(`/orders/${orderId}?payment=cancelled`));
    await page
      .getByText("You left the gateway's checkout without paying. Nothing was charged; you can pay again.")
      .waitFor();
    expect((await definitionsIn(page.getByRole("main")))["Status"]).to.equal("Created");
    expect(callbacks).to.deep.equal([]);
    await expectAccessible(page, "the order page, back from the gateway unpaid");

    // To the gateway again: paid there; the gateway's callback confirms the order.
    await pay.click();
    await page.waitForURL(`${gatewayUrl}/v1/checkout/embedded`);
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(at(`/orders/${orderId}?payment=returned`));
    await page.getByRole("definition").getByText("Confirmed", { exact: true }).waitFor();
    await page.getByRole("region", { name: "Payments" }).getByText("Success", { exact: true }).waitFor();
    expect(callbacks.map(({ status }) => status)).to.deep.equal([200]);
    expect([...orders.values()].map((order) => order.amount)).to.deep.equal([total * 100]);
    await expectAccessible(page, "the order page, paid at the gateway");

    const order = await api("GET", `/api/orders/${orderId}`, { token: customer.token });
    expect((order.body as { status: string }).status).to.equal("CONFIRMED");
    expectQuietAndLocal(recorded);
  });

  // After the journey, whose gateway orders it counts.
  it("has no sandbox checkout: the route answers 404 as an unknown path, and the payment stays unpaid", async () => {
    const productId = await createdProduct({
      name: "Teapot",
      price: 450,
      stock: 2,
      brand: uniqueLabel("Brew"),
    });
    const customer = await registeredUser("no-sandbox");
    const placed = await api("POST", "/api/orders", {
      token: customer.token,
      body: { items: [{ productId, quantity: 1 }] },
    });
    const orderId = (placed.body as { orderId: string }).orderId;
    const created = await api("POST", "/api/payments/create", {
      token: customer.token,
      body: { orderId, amount: 450 },
    });
    expect(created.status, created.text).to.equal(200);
    const { providerOrderId } = created.body as { providerOrderId: string };
    const checkout = await api("POST", "/api/payments/sandbox/checkout", {
      token: customer.token,
      body: { providerOrderId, outcome: "paid" },
    });
    const unknown = await api("POST", "/api/payments/nothing-here", { token: customer.token, body: {} });
    expect(checkout.status).to.equal(404);
    expect(checkout.body).to.deep.equal({
      status: 404,
      code: "NOT_FOUND",
      message: "no route for this path",
    });
    expect(checkout.body).to.deep.equal(unknown.body);
    const mine = await api("GET", "/api/payments/my", { token: customer.token });
    expect((mine.body as { orderId: string; status: string }[]).map(({ status }) => status)).to.deep.equal([
      "CREATED",
    ]);
    const order = await api("GET", `/api/orders/${orderId}`, { token: customer.token });
    expect((order.body as { status: string }).status).to.equal("CREATED");
  });
});

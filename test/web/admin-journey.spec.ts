/**
 * An admin's visit, in a real browser at the platform's public address: log in to the console,
 * create a product and find it in the storefront, confirm then cancel an order, be refused a
 * move the order no longer allows (409, said in words), and read the dashboard's figures, equal
 * to what the analytics API answers at that moment. A customer's orders are placed beforehand
 * through the API; everything the admin does is done on the screen and asserted from it.
 */
import { expect } from "chai";
import { isDeepStrictEqual } from "node:util";
import type { Locator, Page } from "playwright-core";
import { adminLogin, registeredUser } from "../acceptance/support/accounts.js";
import { api } from "../acceptance/support/api.js";
import { uniqueLabel } from "../acceptance/support/catalog.js";
import { acceptanceEnvironment } from "../acceptance/support/environment.js";
import { placedOrder } from "../acceptance/support/payments.js";
import { defaultDeadlineMs } from "../acceptance/support/polling.js";
import { definitionsIn } from "./support/definitions.js";
import { indianCount, rupees } from "./support/indian-numbers.js";
import { expectAccessible, expectQuietAndLocal } from "./support/page-checks.js";
import { reloadUntilShown } from "./support/reload-until-shown.js";
import { saveScreenshot } from "./support/screenshots.js";
import { useSuiteBrowser } from "./support/suite-browser.js";

const at = (path: string): string => new URL(path, acceptanceEnvironment().baseUrl).href;

interface Dashboard {
  readonly totalUsers: number;
  readonly totalOrders: number;
  readonly totalRevenue: number;
  readonly ordersToday: number;
}

/** The dashboard's four figures as the screen should show them, from the API's answer now. */
async function dashboardFromApi(): Promise<Record<string, string>> {
  const response = await api("GET", "/api/analytics/dashboard", { token: await adminLogin() });
  expect(response.status, response.text).to.equal(200);
  const figures = response.body as Dashboard;
  return {
    Users: indianCount(figures.totalUsers),
    Orders: indianCount(figures.totalOrders),
    Revenue: rupees(figures.totalRevenue),
    "Orders today": indianCount(figures.ordersToday),
  };
}

/** Logs in on the login page as the deployment's admin, who lands on the console's dashboard. */
async function logInAsAdmin(page: Page): Promise<void> {
  const { adminEmail, adminPassword } = acceptanceEnvironment();
  await page.goto(at("/login"));
  await page.getByRole("heading", { name: "Log in", level: 1 }).waitFor();
  await page.getByLabel("Email").fill(adminEmail);
  await page.getByLabel("Password").fill(adminPassword);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
  await page.getByText(/^Orders by status \(/).waitFor();
  await page.getByText(/^Revenue per day, /).waitFor();
}

/** The row of the console's orders table for this order (its heading cell links to it). */
const orderRow = (page: Page, orderId: string): Locator =>
  page.getByRole("row").filter({ has: page.getByRole("rowheader").getByRole("link", { name: orderId }) });

/** The row's cells as shown: customer, total, status, and the moves offered. */
const cellsOf = (row: Locator): Promise<string[]> => row.getByRole("cell").allInnerTexts();

describe("An admin's journey in the web app", () => {
  const browser = useSuiteBrowser();

  it("logs in, creates a product and finds it in the storefront, confirms then cancels an order, is refused a stale move, and reads the analytics' figures", async function () {
    this.timeout(180_000);
    // A customer with two orders, both CREATED, for the admin to move.
    const customer = await registeredUser("ordering");
    const first = await placedOrder(customer.token, 500);
    const second = await placedOrder(customer.token, 750);
    const teapot = { name: "Teapot", price: 349.5, stock: 7, brand: uniqueLabel("Chai Co") };

    const recorded = await browser().openPage("desktop");
    const { page } = recorded;
    const header = page.getByRole("navigation", { name: "Main" });
    const consoleNav = page.getByRole("navigation", { name: "Console" });

    await page.goto(at("/login"));
    await page.getByRole("heading", { name: "Log in", level: 1 }).waitFor();
    await expectAccessible(page, "the login page");
    await logInAsAdmin(page);
    await expectAccessible(page, "the console's dashboard");

    // A new product from the console's form, listed first (newest first), then in the storefront.
    await consoleNav.getByRole("link", { name: "Products" }).click();
    await page.getByRole("heading", { name: "Products", level: 1 }).waitFor();
    const form = page.getByRole("group", { name: "New product" });
    await form.getByLabel("Name").fill(teapot.name);
    await form.getByLabel("Description").fill("Glazed stoneware, one litre");
    await form.getByLabel("Price (₹)").fill(String(teapot.price));
    await form.getByLabel("Stock").fill(String(teapot.stock));
    await form.getByLabel("Brand").fill(teapot.brand);
    await form.getByLabel("Category").selectOption({ label: "Home & Kitchen" });
    await form.getByRole("button", { name: "Create product" }).click();
    const listed = page.getByRole("row").filter({ hasText: teapot.brand });
    await listed.waitFor();
    expect(await listed.getByRole("rowheader").innerText()).to.equal(`${teapot.name}\n${teapot.brand}`);
    expect(await form.getByLabel("Name").inputValue(), "the form is emptied").to.equal("");
    await expectAccessible(page, "the console's products");
    await header.getByRole("link", { name: "Catalog" }).click();
    await page.getByRole("heading", { name: "Catalog", level: 1 }).waitFor();
    await page.getByLabel("Brand").fill(teapot.brand);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("1 product", { exact: true }).waitFor();
    const card = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: teapot.name }) });
    expect((await card.innerText()).split("\n")).to.include.members([
      teapot.name,
      `${teapot.brand} · Home & Kitchen`,
      rupees(teapot.price),
      `${teapot.stock} in stock`,
    ]);
    await card.getByRole("link", { name: teapot.name }).click();
    await page.getByRole("heading", { name: teapot.name, level: 1 }).waitFor();
    const facts = await definitionsIn(page.getByRole("main"));
    expect([facts["Price"], facts["Brand"], facts["Category"]]).to.deep.equal([
      rupees(teapot.price),
      teapot.brand,
      "Home & Kitchen",
    ]);

    // The orders: the first confirmed, then cancelled; each status offers only its next move.
    await header.getByRole("link", { name: "Console" }).click();
    await consoleNav.getByRole("link", { name: "Orders" }).click();
    await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
    const confirmFirst = page.getByRole("button", { name: `Confirm order ${first}` });
    await confirmFirst.waitFor();
    expect(await cellsOf(orderRow(page, first))).to.deep.equal([
      customer.email,
      rupees(500),
      "Created",
      "Confirm",
    ]);
    await confirmFirst.click();
    await page.getByRole("button", { name: `Cancel order ${first}` }).click();
    await orderRow(page, first).getByText("None", { exact: true }).waitFor();
    expect(await cellsOf(orderRow(page, first))).to.deep.equal([
      customer.email,
      rupees(500),
      "Cancelled",
      "None",
    ]);

    // The second order, as the page shows it, may be confirmed; meanwhile it is confirmed
    // elsewhere (through the API), so the page's offer is stale and the API refuses it.
    const offered = page.getByRole("button", { name: `Confirm order ${second}` });
    await offered.waitFor();
    await expectAccessible(page, "the console's orders");
    const confirmedElsewhere = await api("PUT", `/api/orders/${second}/status`, {
      token: await adminLogin(),
      body: { status: "CONFIRMED" },
    });
    expect(confirmedElsewhere.status, confirmedElsewhere.text).to.equal(200);
    const refusal = page.waitForResponse(
      (response) =>
        response.request().method() === "PUT" && response.url().endsWith(`/api/orders/${second}/status`),
    );
    await offered.click();
    expect((await refusal).status()).to.equal(409);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect((await alert.innerText()).split("\n").filter((line) => line !== "")).to.deep.equal([
      `Order ${second} was not changed. That clashes with how things stand now.`,
      "Invalid status transition: CONFIRMED to CONFIRMED.",
    ]);
    // The list is read again: the order as it stands, with the move it allows now.
    await page.getByRole("button", { name: `Cancel order ${second}` }).waitFor();
    expect(await cellsOf(orderRow(page, second))).to.deep.equal([
      customer.email,
      rupees(750),
      "Confirmed",
      "Cancel",
    ]);
    await saveScreenshot(recorded, "orders");

    // The users, and every notification: the customer's cancellation among them.
    await consoleNav.getByRole("link", { name: "Users" }).click();
    await page.getByRole("heading", { name: "Users", level: 1 }).waitFor();
    await page.getByRole("rowheader", { name: customer.email }).waitFor();
    await expectAccessible(page, "the console's users");
    await consoleNav.getByRole("link", { name: "Notifications" }).click();
    await page.getByRole("heading", { name: "All notifications", level: 1 }).waitFor();
    await reloadUntilShown(
      page,
      page.getByText(`Your order ${first} has been cancelled.`),
      "the cancellation's notification",
    );
    await expectAccessible(page, "the console's notifications");

    // The dashboard's figures are what the analytics API answers at the moment they are read
    // (its figures follow the events: Refresh until both agree, as a person would).
    await consoleNav.getByRole("link", { name: "Dashboard" }).click();
    await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
    await page.getByText(/^Orders by status \(/).waitFor();
    const deadline = Date.now() + defaultDeadlineMs;
    let shown = await definitionsIn(page.getByRole("main"));
    let answered = await dashboardFromApi();
    while (!isDeepStrictEqual(shown, answered) && Date.now() < deadline) {
      const refreshed = page.waitForResponse((response) =>
        response.url().endsWith("/api/analytics/dashboard"),
      );
      await page.getByRole("button", { name: "Refresh" }).click();
      await refreshed;
      shown = await definitionsIn(page.getByRole("main"));
      answered = await dashboardFromApi();
    }
    expect(shown, "the dashboard's figures, and the analytics API's answer").to.deep.equal(answered);
    await saveScreenshot(recorded, "dashboard", { fullPage: true, inReadme: true });

    // The dashboard on a phone-sized window.
    const phone = await browser().openPage("phone");
    await logInAsAdmin(phone.page);
    await expectAccessible(phone.page, "the console's dashboard on a phone");
    await saveScreenshot(phone, "dashboard-phone", { fullPage: true });

    // The refused move is the one thing the browser reports in the console: its own line for a
    // request answered with an error status.
    expectQuietAndLocal(recorded, [
      "Failed to load resource: the server responded with a status of 409 (Conflict)",
    ]);
    expectQuietAndLocal(phone);
  });
});

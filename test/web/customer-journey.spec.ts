/**
 * A customer's visit, in a real browser at the platform's public address: browse and filter the
 * catalog, fill a cart, register on the way to the checkout, order, pay at the sandbox gateway,
 * watch the order get confirmed, read the notifications it caused and mark one read, and see
 * what they bought together recommended. Only the
 * catalog's products are made beforehand, through the API, by the admin; everything else is
 * done on the screen and asserted from what the screen shows.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import { registration } from "../acceptance/support/accounts.js";
import { createdProduct, uniqueLabel } from "../acceptance/support/catalog.js";
import { acceptanceEnvironment } from "../acceptance/support/environment.js";
import { definitionsIn } from "./support/definitions.js";
import { rupees } from "./support/indian-numbers.js";
import { expectAccessible, expectQuietAndLocal } from "./support/page-checks.js";
import { reloadUntilShown } from "./support/reload-until-shown.js";
import { saveScreenshot } from "./support/screenshots.js";
import { useSuiteBrowser } from "./support/suite-browser.js";

const at = (path: string): string => new URL(path, acceptanceEnvironment().baseUrl).href;

/** The names of the products the catalog shows now (each card's heading). */
const productNames = async (page: Page): Promise<string[]> =>
  (await page.getByRole("main").getByRole("heading", { level: 2 }).allInnerTexts()).sort();

/** How many products the catalog says it found, once it says exactly this. */
async function catalogCount(page: Page, count: number): Promise<void> {
  await page.getByText(`${count} product${count === 1 ? "" : "s"}`, { exact: true }).waitFor();
}

describe("A customer's journey in the web app", () => {
  const browser = useSuiteBrowser();

  it("browses, filters by category and brand, registers, orders two products, pays, sees the order confirmed, marks a notification read and sees the pair recommended", async function () {
    this.timeout(180_000);
    // A brand of this run's own: filtered on it, the catalog shows exactly these products.
    const brand = uniqueLabel("Lumen");
    const lamp = { name: "Desk lamp", price: 1499, stock: 12 };
    const headphones = { name: "Headphones", price: 2999, stock: 5 };
    const guide = { name: "Field guide to birds", price: 349.5, stock: 30 };
    const lampId = await createdProduct({
      ...lamp,
      brand,
      categoryId: "electronics",
      description: "Warm light, steel arm",
    });
    await createdProduct({ ...headphones, brand, categoryId: "electronics", description: "Closed back" });
    await createdProduct({ ...guide, brand, categoryId: "books", description: "With colour plates" });
    const customer = registration("shopper");

    const recorded = await browser().openPage("desktop");
    const { page } = recorded;
    const header = page.getByRole("navigation", { name: "Main" });

    // The storefront, then the brand filter: this run's three products.
    await page.goto(at("/"));
    await page.getByRole("heading", { name: "Catalog", level: 1 }).waitFor();
    await page.getByText(/^\d[\d,]* products?$/).waitFor();
    await expectAccessible(page, "the storefront");
    await page.getByLabel("Brand").fill(brand);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL((url) => url.searchParams.get("brand") === brand);
    await catalogCount(page, 3);
    expect(await productNames(page)).to.deep.equal([lamp.name, headphones.name, guide.name].sort());
    await saveScreenshot(recorded, "storefront", { inReadme: true });

    // The category narrows it: one book, added from its card.
    await page.getByLabel("Category").selectOption({ label: "Books" });
    await catalogCount(page, 1);
    expect(await productNames(page)).to.deep.equal([guide.name]);
    await page.getByRole("button", { name: `Add to cart: ${guide.name}` }).click();
    await header.getByRole("link", { name: "Cart 1 item" }).waitFor();

    // Electronics of the brand: two; the lamp is added from its own page.
    await page.getByLabel("Category").selectOption({ label: "Electronics" });
    await catalogCount(page, 2);
    expect(await productNames(page)).to.deep.equal([lamp.name, headphones.name].sort());
    await page.getByRole("link", { name: lamp.name }).click();
    await page.getByRole("heading", { name: lamp.name, level: 1 }).waitFor();
    const facts = await definitionsIn(page.getByRole("main"));
    expect([facts["Price"], facts["Brand"], facts["Availability"]]).to.deep.equal([
      rupees(lamp.price),
      brand,
      `${lamp.stock} in stock`,
    ]);
    await expectAccessible(page, "the product page");
    await saveScreenshot(recorded, "product", { fullPage: true });
    await page.getByRole("button", { name: "Add to cart", exact: true }).click();
    await header.getByRole("link", { name: "Cart 2 items" }).click();

    // The cart, and the way to the checkout through the login page to a new account.
    await page.getByRole("heading", { name: "Your cart", level: 1 }).waitFor();
    const cartLines = page.getByRole("table").getByRole("rowheader");
    expect((await cartLines.allInnerTexts()).sort()).to.deep.equal([lamp.name, guide.name].sort());
    const total = lamp.price + guide.price;
    await page.getByText(`2 items, about ${rupees(total)}`).waitFor();
    await expectAccessible(page, "the cart");
    await page.getByRole("link", { name: "Log in to place your order" }).click();
    await page.getByRole("heading", { name: "Log in", level: 1 }).waitFor();
    await expectAccessible(page, "the login page");
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByRole("heading", { name: "Create an account", level: 1 }).waitFor();
    await expectAccessible(page, "the registration page");
    await page.getByLabel("Full name").fill(customer.fullName);
    await page.getByLabel("Email").fill(customer.email);
    await page.getByLabel("Phone number").fill(customer.phoneNo);
    await page.getByLabel("Password").fill(customer.password);
    await page.getByRole("button", { name: "Create account" }).click();

    // Back at the cart, signed in: the order, priced by the API, then paid.
    await page.getByRole("heading", { name: "Your cart", level: 1 }).waitFor();
    await header.getByRole("link", { name: "My orders" }).waitFor();
    await page.getByRole("button", { name: "Place order" }).click();
    await page.getByRole("heading", { name: "Order", level: 1 }).waitFor();
    const pay = page.getByRole("button", { name: `Pay ${rupees(total)}` });
    await pay.waitFor();
    const placed = await definitionsIn(page.getByRole("main"));
    expect([placed["Status"], placed["Total"]]).to.deep.equal(["Created", rupees(total)]);
    const orderId = placed["Order"] ?? "";
    expect(orderId).to.not.equal("");
    await pay.click();
    await page.getByRole("group", { name: "Sandbox checkout" }).waitFor();
    await page.getByRole("button", { name: "Pay now" }).click();
    // The payment's event confirms the order moments later; the page watches for it.
    await page.getByRole("definition").getByText("Confirmed", { exact: true }).waitFor();
    expect((await definitionsIn(page.getByRole("main")))["Status"]).to.equal("Confirmed");
    await page.getByRole("region", { name: "Payments" }).getByText("Success", { exact: true }).waitFor();
    await expectAccessible(page, "the order page");

    // My orders and my payments say the same.
    await header.getByRole("link", { name: "My orders" }).click();
    await page.getByRole("heading", { name: "My orders", level: 1 }).waitFor();
    const orderRow = page.getByRole("row").filter({ has: page.getByRole("link", { name: orderId }) });
    await orderRow.waitFor();
    expect(await orderRow.getByRole("cell").allInnerTexts()).to.include.members([rupees(total), "Confirmed"]);
    await expectAccessible(page, "my orders");
    await header.getByRole("link", { name: "Payments" }).click();
    await page.getByRole("heading", { name: "My payments", level: 1 }).waitFor();
    const paymentRow = page.getByRole("row").filter({ has: page.getByRole("link", { name: orderId }) });
    await paymentRow.waitFor();
    expect(await paymentRow.getByRole("cell").allInnerTexts()).to.include.members([rupees(total), "Success"]);
    await expectAccessible(page, "my payments");

    // The notifications the order caused (they come through events: reload until they are in),
    // and the header's unread count, which marking one read lowers by one.
    await header.getByRole("link", { name: /^Notifications/ }).click();
    await page.getByRole("heading", { name: "Notifications", level: 1 }).waitFor();
    const confirmation = `Your order ${orderId} has been confirmed.`;
    for (const message of [
      new RegExp(`Your order ${orderId} for .+ has been placed\\.$`),
      new RegExp(`Payment of .+ for order ${orderId} was successful\\.$`),
      confirmation,
    ]) {
      await reloadUntilShown(page, page.getByText(message), `the notification ${String(message)}`);
    }
    const markButtons = page.getByRole("button", { name: /^Mark as read: / });
    const unread = await markButtons.count();
    const unreadLink = (count: number) => header.getByRole("link", { name: `Notifications ${count} unread` });
    await unreadLink(unread).waitFor();
    await expectAccessible(page, "the notifications");
    await page.getByRole("button", { name: `Mark as read: ${confirmation}` }).click();
    await unreadLink(unread - 1).waitFor();
    // The header's count and the list are read again each on its own: wait for the list's.
    await page.getByRole("button", { name: `Mark as read: ${confirmation}` }).waitFor({ state: "detached" });
    expect(await markButtons.count()).to.equal(unread - 1);

    // The lamp's page now says what was bought with it: the guide first (learnt from the order's
    // event, so reload until it is in), then the shop's best sellers.
    await page.goto(at(`/products/${encodeURIComponent(lampId)}`));
    await page.getByRole("heading", { name: lamp.name, level: 1 }).waitFor();
    const alsoBought = page.getByRole("region", { name: "Customers also bought" });
    await reloadUntilShown(
      page,
      alsoBought.getByRole("link", { name: guide.name }),
      "the guide, bought with the lamp",
    );
    const recommended = await alsoBought.getByRole("heading", { level: 3 }).allInnerTexts();
    expect(recommended[0]).to.equal(guide.name);
    expect(recommended.length).to.be.within(1, 4);
    await expectAccessible(page, "the product page with what was bought with it");
    await saveScreenshot(recorded, "product-also-bought", { fullPage: true });

    // The account the registration made.
    await header.getByRole("link", { name: "Account" }).click();
    await page.getByRole("heading", { name: "My account", level: 1 }).waitFor();
    await page.getByRole("main").getByText(customer.email).waitFor();
    await expectAccessible(page, "my account");

    // The storefront on a phone-sized window.
    const phone = await browser().openPage("phone");
    await phone.page.goto(at(`/?brand=${encodeURIComponent(brand)}`));
    await catalogCount(phone.page, 3);
    // The order took its units from the stock.
    const stockOf = (name: string) =>
      phone.page.getByRole("listitem").filter({ has: phone.page.getByRole("link", { name }) });
    await stockOf(lamp.name)
      .getByText(`${lamp.stock - 1} in stock`)
      .waitFor();
    await stockOf(guide.name)
      .getByText(`${guide.stock - 1} in stock`)
      .waitFor();
    await expectAccessible(phone.page, "the storefront on a phone");
    await saveScreenshot(phone, "storefront-phone", { fullPage: true });

    expectQuietAndLocal(recorded);
    expectQuietAndLocal(phone);
  });
});

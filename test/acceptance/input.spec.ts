/**
 * Input the edges must refuse before anything is stored (ADR 0008, ADR 0009):
 * numbers in any notation but plain decimal, unknown fields
 * in every body, and control or invisible formatting characters where text can never need them.
 */
import { expect } from "chai";
import { adminLogin, registeredUser, registration, login, type TestUser } from "./support/accounts.js";
import { api, type ApiResponse } from "./support/api.js";
import { createdProduct, productInput, productsOfBrand } from "./support/catalog.js";
import { forbidden } from "./support/forbidden-text.js";

const address = { street: "12 MG Road", city: "Bengaluru", state: "Karnataka", pincode: "560001" };

function expectInvalid(response: ApiResponse, what: string): void {
  expect(response.status, `${what}: ${response.text}`).to.equal(400);
  expect((response.body as { code?: string } | undefined)?.code, what).to.equal("INVALID_ARGUMENT");
}

async function productOf(id: string): Promise<{ price: number; stock: number }> {
  const response = await api("GET", `/api/products/${encodeURIComponent(id)}`);
  expect(response.status, response.text).to.equal(200);
  return response.body as { price: number; stock: number };
}

async function addressesOf(user: TestUser): Promise<{ id: number }[]> {
  const response = await api("GET", "/api/users/addresses", { token: user.token });
  expect(response.status, response.text).to.equal(200);
  return response.body as { id: number }[];
}

async function orderCountOf(user: TestUser): Promise<number> {
  const response = await api("GET", "/api/orders/my", { token: user.token });
  expect(response.status, response.text).to.equal(200);
  return (response.body as unknown[]).length;
}

describe("Input: numbers are plain decimal", () => {
  it("refuses an order quantity written as a string (hex, decimal or exponent) and takes no stock", async () => {
    const buyer = await registeredUser("hex-buyer");
    const productId = await createdProduct({ stock: 40 });
    for (const quantity of ["0x10", "16", "1e1", " 2"]) {
      const response = await api("POST", "/api/orders", {
        token: buyer.token,
        body: { items: [{ productId, quantity }] },
      });
      expectInvalid(response, `quantity ${JSON.stringify(quantity)}`);
    }
    expect((await productOf(productId)).stock).to.equal(40);
    expect(await orderCountOf(buyer)).to.equal(0);
  });

  it("refuses a quantity literal with an exponent or a fraction, and takes no stock", async () => {
    const buyer = await registeredUser("exp-buyer");
    const productId = await createdProduct({ stock: 40 });
    for (const quantity of ["1e1", "2.0", "1E0"]) {
      const response = await api("POST", "/api/orders", {
        token: buyer.token,
        rawBody: `{"items":[{"productId":${JSON.stringify(productId)},"quantity":${quantity}}]}`,
        headers: { "content-type": "application/json" },
      });
      expectInvalid(response, `quantity ${quantity}`);
    }
    expect((await productOf(productId)).stock).to.equal(40);
    expect(await orderCountOf(buyer)).to.equal(0);
  });

  it("refuses price and stock written as hex strings on create, bulk create and update, changing nothing", async () => {
    const admin = await adminLogin();
    for (const change of [{ price: "0x10" }, { stock: "0x10" }, { price: "1e2" }, { stock: "12" }]) {
      const input = { ...productInput(), ...change };
      expectInvalid(
        await api("POST", "/api/products", { token: admin, body: input }),
        JSON.stringify(change),
      );
      expectInvalid(
        await api("POST", "/api/products/bulk", { token: admin, body: [input] }),
        `bulk ${JSON.stringify(change)}`,
      );
      expect((await productsOfBrand(input.brand)).totalElements).to.equal(0);
    }
    const productId = await createdProduct({ price: 10, stock: 5 });
    for (const change of [{ price: "0x10" }, { stock: "0x10" }, { stock: "1e1" }]) {
      const response = await api("PUT", `/api/products/${productId}`, { token: admin, body: change });
      expectInvalid(response, `update ${JSON.stringify(change)}`);
    }
    const raw = await api("PUT", `/api/products/${productId}`, {
      token: admin,
      rawBody: '{"price":1e2,"stock":7}',
      headers: { "content-type": "application/json" },
    });
    expectInvalid(raw, "price literal 1e2");
    expect(await productOf(productId)).to.include({ price: 10, stock: 5 });
  });

  it("refuses path ids that are not plain decimal (1e0, 0x1, +1, 01) and deletes nothing", async () => {
    const user = await registeredUser("path-ids");
    expect((await api("POST", "/api/users/addresses", { token: user.token, body: address })).status).to.equal(
      201,
    );
    const [mine] = await addressesOf(user);
    const id = mine?.id ?? 0;
    expect(id).to.be.greaterThan(0);
    for (const text of ["1e0", "0x1", "+1", "01", "%2B1", " 1"].map((t) => t.replace("1", String(id)))) {
      const path = `/api/users/addresses/${text.includes(" ") ? encodeURIComponent(text) : text}`;
      expectInvalid(await api("DELETE", path, { token: user.token }), `DELETE ${path}`);
      expectInvalid(await api("PUT", path, { token: user.token, body: address }), `PUT ${path}`);
    }
    expect((await addressesOf(user)).map((a) => a.id)).to.deep.equal([id]);
  });

  it("refuses query numbers that are not plain decimal (size=0x10, page=1e0, size=+5, size=05)", async () => {
    for (const query of ["size=0x10", "page=1e0", "size=%2B5", "size=05", "page=-0"]) {
      expectInvalid(await api("GET", `/api/products?${query}`), query);
    }
    expect((await api("GET", "/api/products?size=5&page=0")).status).to.equal(200);
  });
});

describe("Input: unknown fields", () => {
  it("refuses an unknown field in a bulk-create item and creates nothing", async () => {
    const admin = await adminLogin();
    const good = productInput();
    const withRole = { ...productInput({ brand: good.brand }), role: "ADMIN" };
    const response = await api("POST", "/api/products/bulk", { token: admin, body: [good, withRole] });
    expectInvalid(response, "bulk item with role");
    expect((await productsOfBrand(good.brand)).totalElements).to.equal(0);
  });
});

describe("Input: control and invisible formatting characters", () => {
  it("refuses them in the registration's full name and password, and registers nobody", async () => {
    for (const [what, character] of forbidden) {
      for (const field of ["fullName", "password"] as const) {
        const input = registration("ctl");
        const value = field === "fullName" ? `Asha${character}Verma` : `correct${character}horse`;
        const response = await api("POST", "/api/auth/register", { body: { ...input, [field]: value } });
        expectInvalid(response, `${field} with ${what}`);
        const signIn = await api("POST", "/api/auth/login", {
          body: { email: input.email, password: input.password },
        });
        expect(signIn.status, `${field} with ${what}: account exists`).to.equal(404);
      }
    }
  });

  it("refuses them in a profile's full name and keeps the old one", async () => {
    const user = await registeredUser("ctl-profile");
    for (const [what, character] of forbidden) {
      const response = await api("PUT", "/api/users/me", {
        token: user.token,
        body: { fullName: `Mallory${character}Admin`, phoneNo: user.phoneNo },
      });
      expectInvalid(response, `fullName with ${what}`);
    }
    const me = await api("GET", "/api/users/me", { token: user.token });
    expect((me.body as { fullName: string }).fullName).to.equal(user.fullName);
  });

  it("refuses them in every address line, on add and update, and stores nothing", async () => {
    const user = await registeredUser("ctl-address");
    expect((await api("POST", "/api/users/addresses", { token: user.token, body: address })).status).to.equal(
      201,
    );
    const [mine] = await addressesOf(user);
    for (const [what, character] of forbidden) {
      for (const field of ["street", "city", "state", "pincode"] as const) {
        const body = { ...address, [field]: `${address[field].slice(0, 3)}${character}1` };
        expectInvalid(
          await api("POST", "/api/users/addresses", { token: user.token, body }),
          `add ${field} with ${what}`,
        );
        expectInvalid(
          await api("PUT", `/api/users/addresses/${mine?.id}`, { token: user.token, body }),
          `update ${field} with ${what}`,
        );
      }
    }
    expect(await addressesOf(user)).to.deep.equal([{ id: mine?.id, ...address }]);
  });

  it("refuses them in a product's name, brand and category, on create and bulk create, and creates nothing", async () => {
    const admin = await adminLogin();
    for (const [what, character] of forbidden) {
      for (const field of ["name", "brand", "categoryId"] as const) {
        const input = productInput();
        const body = { ...input, [field]: `${input[field]}${character}x` };
        expectInvalid(await api("POST", "/api/products", { token: admin, body }), `${field} with ${what}`);
        expectInvalid(
          await api("POST", "/api/products/bulk", { token: admin, body: [productInput(), body] }),
          `bulk ${field} with ${what}`,
        );
        expect((await productsOfBrand(input.brand)).totalElements).to.equal(0);
      }
    }
  });

  it("refuses them in a description, except line feeds and tabs", async () => {
    const admin = await adminLogin();
    for (const [what, character] of forbidden.filter(([, c]) => c !== "\n")) {
      const input = productInput({ description: `Line one${character}line two` });
      expectInvalid(
        await api("POST", "/api/products", { token: admin, body: input }),
        `description with ${what}`,
      );
      expect((await productsOfBrand(input.brand)).totalElements).to.equal(0);
    }
    const multiline = productInput({ description: "Line one\nline two\twith a tab" });
    const created = await api("POST", "/api/products", { token: admin, body: multiline });
    expect(created.status, created.text).to.equal(201);
  });

  it("still accepts the joiners that Indic scripts and emoji need, and other languages' text", async () => {
    const input = { ...registration("script"), fullName: "ശ്ര\u200dീ 李 Ñúñez 👩\u200d💻" };
    const response = await api("POST", "/api/auth/register", { body: input });
    expect(response.status, response.text).to.equal(201);
    const token = await login(input.email, input.password);
    const me = await api("GET", "/api/users/me", { token });
    expect((me.body as { fullName: string }).fullName).to.equal(input.fullName);
  });
});

import { expect } from "chai";
import { api } from "./support/api.js";
import { adminLogin, registeredUser } from "./support/accounts.js";
import {
  createdProduct,
  productInput,
  productsOfBrand,
  uniqueLabel,
  type ProductInput,
  type ProductPage,
} from "./support/catalog.js";

interface Product {
  id: string;
  name: string;
  description: string;
  price: number;
  stock: number;
  sku: string;
  brand: string;
  category: string;
}

const unauthenticated = { status: 401, code: "UNAUTHENTICATED", message: "a valid bearer token is required" };
const adminRequired = { status: 403, code: "PERMISSION_DENIED", message: "admin role required" };
const productNotFound = { status: 404, code: "NOT_FOUND", message: "product not found" };
const nameTaken = {
  status: 409,
  code: "ALREADY_EXISTS",
  message: "an active product with this name and brand already exists",
};

async function getProduct(id: string): Promise<Product> {
  const response = await api("GET", `/api/products/${id}`);
  expect(response.status, response.text).to.equal(200);
  return response.body as Product;
}

async function createAsAdmin(body: unknown): Promise<ReturnType<typeof api>> {
  return api("POST", "/api/products", { token: await adminLogin(), body });
}

describe("Product: GET /api/categories", () => {
  it("lists the seeded categories without a token, as a bare array of { id, name }", async () => {
    const response = await api("GET", "/api/categories");
    expect(response.status).to.equal(200);
    const categories = response.body as { id: string; name: string }[];
    expect(categories).to.deep.include.members([
      { id: "electronics", name: "Electronics" },
      { id: "books", name: "Books" },
      { id: "home-kitchen", name: "Home & Kitchen" },
      { id: "fashion", name: "Fashion" },
      { id: "sports", name: "Sports" },
      { id: "toys", name: "Toys" },
      { id: "beauty", name: "Beauty" },
      { id: "grocery", name: "Grocery" },
    ]);
    for (const category of categories) expect(Object.keys(category).sort()).to.deep.equal(["id", "name"]);
  });
});

describe("Product: GET /api/products/{productId}", () => {
  it("shows a product without a token, with exactly the contract's fields and the category's name", async () => {
    const input = productInput({ price: 19.99, stock: 12, categoryId: "home-kitchen" });
    expect((await createAsAdmin(input)).status).to.equal(201);
    const [summary] = (await productsOfBrand(input.brand)).content;
    const product = await getProduct(summary?.id ?? "");
    expect(Object.keys(product).sort()).to.deep.equal([
      "brand",
      "category",
      "description",
      "id",
      "name",
      "price",
      "sku",
      "stock",
    ]);
    expect(product).to.deep.equal({
      id: summary?.id,
      name: input.name,
      description: input.description,
      price: 19.99,
      stock: 12,
      sku: product.sku,
      brand: input.brand,
      category: "Home & Kitchen",
    });
    expect(product.sku).to.match(/^HOME-[0-9A-Z]{8}$/);
  });

  it("answers 404 for an unknown product", async () => {
    const response = await api("GET", "/api/products/no-such-product");
    expect(response.status).to.equal(404);
    expect(response.body).to.deep.equal(productNotFound);
  });
});

describe("Product: GET /api/products", () => {
  it("lists active products without a token as { content, totalElements, totalPages }", async () => {
    const brand = uniqueLabel("Brand");
    const id = await createdProduct({ brand, price: 5.5, stock: 3, categoryId: "books" });
    const response = await api("GET", `/api/products?brand=${encodeURIComponent(brand)}`);
    expect(response.status).to.equal(200);
    const page = response.body as ProductPage;
    expect(Object.keys(page).sort()).to.deep.equal(["content", "totalElements", "totalPages"]);
    expect(page.totalElements).to.equal(1);
    expect(page.totalPages).to.equal(1);
    expect(page.content).to.deep.equal([
      { id, name: page.content[0]?.name, price: 5.5, stock: 3, brand, category: "Books" },
    ]);
  });

  it("pages 20 by default, zero-based, newest first", async () => {
    const brand = uniqueLabel("Brand");
    const created = await api("POST", "/api/products/bulk", {
      token: await adminLogin(),
      body: Array.from({ length: 21 }, (_, i) => productInput({ brand, name: uniqueLabel(`Paged ${i}`) })),
    });
    expect(created.status, created.text).to.equal(201);
    const first = await productsOfBrand(brand);
    expect(first.content).to.have.length(20);
    expect(first).to.include({ totalElements: 21, totalPages: 2 });
    const second = await productsOfBrand(brand, "&page=1");
    expect(second.content).to.have.length(1);
    expect(second).to.include({ totalElements: 21, totalPages: 2 });
    const all = [...first.content, ...second.content].map((p) => p.id);
    expect(new Set(all).size).to.equal(21);
    expect((await productsOfBrand(brand, "&page=2")).content).to.deep.equal([]);
    const bySeven = await productsOfBrand(brand, "&size=7&page=2");
    expect(bySeven.content).to.have.length(7);
    expect(bySeven).to.include({ totalElements: 21, totalPages: 3 });

    const newest = uniqueLabel("Brand");
    const older = await createdProduct({ brand: newest });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = await createdProduct({ brand: newest });
    expect((await productsOfBrand(newest)).content.map((p) => p.id)).to.deep.equal([newer, older]);
  });

  it("filters by category name as read responses show it, by category id, and by brand", async () => {
    const brand = uniqueLabel("Brand");
    const book = await createdProduct({ brand, categoryId: "books" });
    const toy = await createdProduct({ brand, categoryId: "toys" });
    const other = await createdProduct({ categoryId: "books" });
    const ids = async (query: string): Promise<string[]> => {
      const response = await api("GET", `/api/products?${query}`);
      expect(response.status, response.text).to.equal(200);
      return (response.body as ProductPage).content.map((p) => p.id);
    };
    const b = encodeURIComponent(brand);
    expect(await ids(`brand=${b}&category=Books`)).to.deep.equal([book]);
    expect(await ids(`brand=${b}&category=books`)).to.deep.equal([book]);
    expect(await ids(`brand=${b}&category=Toys`)).to.deep.equal([toy]);
    expect(await ids(`brand=${b}&category=${encodeURIComponent("Home & Kitchen")}`)).to.deep.equal([]);
    expect(await ids(`brand=${b}&category=Cars`)).to.deep.equal([]);
    expect(await ids(`brand=${b}`)).to.have.members([book, toy]);
    const books = await ids("category=Books&size=100");
    expect(books).to.include(book).and.include(other).and.not.include(toy);
  });

  it("answers 400 for size=101, size=0, page=-1, a non-number and an unknown parameter", async () => {
    for (const query of ["size=101", "size=0", "page=-1", "size=abc", "sort=name"]) {
      const response = await api("GET", `/api/products?${query}`);
      expect(response.status, query).to.equal(400);
      expect((response.body as { code: string }).code).to.equal("INVALID_ARGUMENT");
    }
    const size = await api("GET", "/api/products?size=101");
    expect(size.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: "size: must be greater than or equal to 1 and less than or equal to 100",
    });
  });
});

describe("Product: admin access", () => {
  it("answers 401 without a token and 403 to a customer on every admin write, changing nothing", async () => {
    const customer = await registeredUser("shopper");
    const id = await createdProduct({ stock: 4 });
    const input = productInput();
    const writes: [string, string, unknown][] = [
      ["POST", "/api/products", input],
      ["PUT", `/api/products/${id}`, { stock: 99 }],
      ["DELETE", `/api/products/${id}`, undefined],
      ["POST", "/api/products/bulk", [input]],
    ];
    for (const [method, path, body] of writes) {
      const anonymous = await api(method, path, body === undefined ? {} : { body });
      expect(anonymous.status, `${method} ${path}`).to.equal(401);
      expect(anonymous.body).to.deep.equal(unauthenticated);
      const forbidden = await api(method, path, {
        token: customer.token,
        ...(body === undefined ? {} : { body }),
      });
      expect(forbidden.status, `${method} ${path}`).to.equal(403);
      expect(forbidden.body).to.deep.equal(adminRequired);
    }
    expect((await getProduct(id)).stock).to.equal(4);
    expect((await productsOfBrand(input.brand)).totalElements).to.equal(0);
  });
});

describe("Product: POST /api/products", () => {
  it("creates a product: 201 { message }", async () => {
    const input = productInput({ price: 1200, stock: 0, categoryId: "sports" });
    const response = await createAsAdmin(input);
    expect(response.status).to.equal(201);
    expect(response.body).to.deep.equal({ message: "product created" });
    const [listed] = (await productsOfBrand(input.brand)).content;
    expect(listed).to.include({ name: input.name, price: 1200, stock: 0, category: "Sports" });
  });

  it("answers 400 for invalid input and creates nothing", async () => {
    const brand = uniqueLabel("Brand");
    const valid = productInput({ brand });
    const without = (field: keyof ProductInput): Record<string, unknown> =>
      Object.fromEntries(Object.entries(valid).filter(([key]) => key !== field));
    const cases: [string, unknown, string | undefined][] = [
      ["a negative price", { ...valid, price: -1 }, undefined],
      ["a zero price", { ...valid, price: 0 }, undefined],
      ["a negative stock", { ...valid, stock: -1 }, undefined],
      ["a fractional stock", { ...valid, stock: 1.5 }, undefined],
      ["no name", without("name"), undefined],
      ["a blank name", { ...valid, name: "   " }, undefined],
      ["no price", without("price"), "product.price: value is required"],
      ["no stock", without("stock"), "product.stock: value is required"],
      ["no category", without("categoryId"), undefined],
      [
        "a price with three decimals",
        { ...valid, price: 9.999 },
        "product.price: must have at most two decimals",
      ],
      ["a price given as a string", { ...valid, price: "ten" }, undefined],
      ["an unknown field", { ...valid, active: false }, undefined],
    ];
    for (const [what, body, message] of cases) {
      const response = await createAsAdmin(body);
      expect(response.status, what).to.equal(400);
      expect((response.body as { code: string }).code, what).to.equal("INVALID_ARGUMENT");
      if (message !== undefined)
        expect(response.body, what).to.deep.equal({ status: 400, code: "INVALID_ARGUMENT", message });
    }
    const malformed = await api("POST", "/api/products", {
      token: await adminLogin(),
      rawBody: '{"name": "x",',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: "request body is not valid JSON",
    });
    expect((await productsOfBrand(brand)).totalElements).to.equal(0);
  });

  it("answers 404 for a category that does not exist, and creates nothing", async () => {
    const brand = uniqueLabel("Brand");
    const response = await createAsAdmin(productInput({ brand, categoryId: "cars" }));
    expect(response.status).to.equal(404);
    expect(response.body).to.deep.equal({
      status: 404,
      code: "NOT_FOUND",
      message: 'product.categoryId: category "cars" not found',
    });
    expect((await productsOfBrand(brand)).totalElements).to.equal(0);
  });

  it("answers 409 for an active product with the same name and brand, compared case-insensitively", async () => {
    const input = productInput();
    expect((await createAsAdmin(input)).status).to.equal(201);
    const again = await createAsAdmin({
      ...input,
      name: input.name.toUpperCase(),
      brand: input.brand.toLowerCase(),
    });
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.equal(nameTaken);
    expect((await createAsAdmin({ ...input, brand: uniqueLabel("Other brand") })).status).to.equal(201);
    expect((await productsOfBrand(input.brand)).totalElements).to.equal(1);
  });

  it("frees a name and brand once its product is deleted", async () => {
    const input = productInput();
    const id = await createdProduct(input);
    expect((await api("DELETE", `/api/products/${id}`, { token: await adminLogin() })).status).to.equal(204);
    expect((await createAsAdmin(input)).status).to.equal(201);
    const { content } = await productsOfBrand(input.brand);
    expect(content).to.have.length(1);
    expect(content[0]?.id).not.to.equal(id);
  });
});

describe("Product: PUT /api/products/{productId}", () => {
  it("updates price and stock together or one at a time: 200 { message }", async () => {
    const id = await createdProduct({ price: 10, stock: 5 });
    const admin = await adminLogin();
    const both = await api("PUT", `/api/products/${id}`, { token: admin, body: { price: 12.5, stock: 40 } });
    expect(both.status).to.equal(200);
    expect(both.body).to.deep.equal({ message: "product updated" });
    expect(await getProduct(id)).to.include({ price: 12.5, stock: 40 });
    expect(
      (await api("PUT", `/api/products/${id}`, { token: admin, body: { price: 0.99 } })).status,
    ).to.equal(200);
    expect(await getProduct(id)).to.include({ price: 0.99, stock: 40 });
    expect((await api("PUT", `/api/products/${id}`, { token: admin, body: { stock: 0 } })).status).to.equal(
      200,
    );
    expect(await getProduct(id)).to.include({ price: 0.99, stock: 0 });
  });

  it("answers 400 for an empty, negative or over-precise update and changes nothing", async () => {
    const id = await createdProduct({ price: 10, stock: 5 });
    const admin = await adminLogin();
    for (const body of [{}, { stock: -1 }, { price: -3 }, { price: 10.001 }, { price: 1, name: "renamed" }]) {
      const response = await api("PUT", `/api/products/${id}`, { token: admin, body });
      expect(response.status, JSON.stringify(body)).to.equal(400);
    }
    expect(await getProduct(id)).to.include({ price: 10, stock: 5 });
  });

  it("answers 404 for an unknown or deleted product", async () => {
    const admin = await adminLogin();
    const unknown = await api("PUT", "/api/products/no-such-product", { token: admin, body: { stock: 1 } });
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal(productNotFound);
    const id = await createdProduct();
    await api("DELETE", `/api/products/${id}`, { token: admin });
    expect((await api("PUT", `/api/products/${id}`, { token: admin, body: { price: 3 } })).status).to.equal(
      404,
    );
  });
});

describe("Product: DELETE /api/products/{productId}", () => {
  it("soft-deletes: 204 without a body, then gone from the list and GET, and 404 the second time", async () => {
    const brand = uniqueLabel("Brand");
    const id = await createdProduct({ brand });
    const kept = await createdProduct({ brand });
    const admin = await adminLogin();
    const response = await api("DELETE", `/api/products/${id}`, { token: admin });
    expect(response.status).to.equal(204);
    expect(response.text).to.equal("");
    expect((await productsOfBrand(brand)).content.map((p) => p.id)).to.deep.equal([kept]);
    expect((await productsOfBrand(brand)).totalElements).to.equal(1);
    const read = await api("GET", `/api/products/${id}`);
    expect(read.status).to.equal(404);
    expect(read.body).to.deep.equal(productNotFound);
    const again = await api("DELETE", `/api/products/${id}`, { token: admin });
    expect(again.status).to.equal(404);
    expect(again.body).to.deep.equal(productNotFound);
  });
});

describe("Product: POST /api/products/bulk", () => {
  it("creates every item: 201 { message, ids } with the ids in request order", async () => {
    const brand = uniqueLabel("Brand");
    const items: ProductInput[] = [
      productInput({ brand, price: 1, stock: 1, categoryId: "grocery" }),
      productInput({ brand, price: 2.5, stock: 0, categoryId: "beauty" }),
      productInput({ brand, price: 3.75, stock: 9, categoryId: "fashion" }),
    ];
    const response = await api("POST", "/api/products/bulk", { token: await adminLogin(), body: items });
    expect(response.status).to.equal(201);
    const body = response.body as { message: string; ids: string[] };
    expect(Object.keys(body).sort()).to.deep.equal(["ids", "message"]);
    expect(body.message).to.equal("3 products created");
    expect(body.ids).to.have.length(3);
    const created = await Promise.all(body.ids.map(getProduct));
    expect(created.map((p) => [p.name, p.price, p.stock, p.category])).to.deep.equal([
      [items[0]?.name, 1, 1, "Grocery"],
      [items[1]?.name, 2.5, 0, "Beauty"],
      [items[2]?.name, 3.75, 9, "Fashion"],
    ]);
    expect((await productsOfBrand(brand)).totalElements).to.equal(3);
  });

  it("creates none when one item is invalid, duplicated or taken", async () => {
    const taken = productInput();
    expect((await createAsAdmin(taken)).status).to.equal(201);
    const admin = await adminLogin();
    const cases: [string, (brand: string) => unknown[], number][] = [
      [
        "a price with three decimals",
        (brand) => [productInput({ brand }), productInput({ brand, price: 0.001 })],
        400,
      ],
      [
        "an unknown category",
        (brand) => [productInput({ brand }), productInput({ brand, categoryId: "nope" })],
        404,
      ],
      [
        "a missing stock",
        (brand) => [productInput({ brand }), { name: "x", price: 1, brand, categoryId: "books" }],
        400,
      ],
      [
        "two items with one name and brand",
        (brand) => {
          const item = productInput({ brand });
          return [item, productInput({ brand }), { ...item, name: item.name.toLowerCase() }];
        },
        409,
      ],
      [
        "an item that is already active",
        (brand) => [productInput({ brand }), { ...taken, brand }, taken],
        409,
      ],
    ];
    for (const [what, items, status] of cases) {
      const brand = uniqueLabel("Brand");
      const response = await api("POST", "/api/products/bulk", { token: admin, body: items(brand) });
      expect(response.status, what).to.equal(status);
      expect((await productsOfBrand(brand)).totalElements, what).to.equal(0);
    }
    expect((await productsOfBrand(taken.brand)).totalElements).to.equal(1);
  });

  it("answers 400 for an empty array, more than 100 items, and a body that is not an array", async () => {
    const admin = await adminLogin();
    const brand = uniqueLabel("Brand");
    const tooMany = Array.from({ length: 101 }, () => productInput({ brand }));
    for (const body of [[], tooMany, productInput({ brand })]) {
      const response = await api("POST", "/api/products/bulk", { token: admin, body });
      expect(response.status).to.equal(400);
    }
    expect((await productsOfBrand(brand)).totalElements).to.equal(0);
  });
});

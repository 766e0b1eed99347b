/**
 * Products for the black-box suites. Other suites share the deployment, so every product gets
 * a unique name and, by default, a brand of its own: a test reads back only what it made by
 * filtering on its brand.
 */
import { expect } from "chai";
import { api } from "./api.js";
import { adminLogin } from "./accounts.js";

export interface ProductInput {
  readonly name: string;
  readonly description?: string;
  readonly price: number;
  readonly stock: number;
  readonly brand: string;
  readonly categoryId: string;
}

export interface ProductSummary {
  readonly id: string;
  readonly name: string;
  readonly price: number;
  readonly stock: number;
  readonly brand: string;
  readonly category: string;
}

export interface ProductPage {
  readonly content: ProductSummary[];
  readonly totalElements: number;
  readonly totalPages: number;
}

let counter = 0;

/** A label no other test run uses, for names and brands. */
export function uniqueLabel(prefix: string): string {
  counter += 1;
  return `${prefix} ${Date.now().toString(36)}-${process.pid}-${counter}`;
}

export function productInput(overrides: Partial<ProductInput> = {}): ProductInput {
  return {
    name: uniqueLabel("Product"),
    description: "A product made by the acceptance suite",
    price: 249.99,
    stock: 10,
    brand: uniqueLabel("Brand"),
    categoryId: "electronics",
    ...overrides,
  };
}

/** The products of one brand, as the public list shows them. */
export async function productsOfBrand(brand: string, query = ""): Promise<ProductPage> {
  const response = await api("GET", `/api/products?brand=${encodeURIComponent(brand)}${query}`);
  expect(response.status, response.text).to.equal(200);
  return response.body as ProductPage;
}

/** Creates a product as the admin (POST /api/products) and returns its id. */
export async function createdProduct(overrides: Partial<ProductInput> = {}): Promise<string> {
  const input = productInput(overrides);
  const response = await api("POST", "/api/products", { token: await adminLogin(), body: input });
  expect(response.status, response.text).to.equal(201);
  const match = (await productsOfBrand(input.brand, "&size=100")).content.find((p) => p.name === input.name);
  if (match === undefined) throw new Error(`created product ${input.name} is not listed`);
  return match.id;
}

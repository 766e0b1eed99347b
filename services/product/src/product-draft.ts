/**
 * The rules a new product must meet beyond what the schema checks (presence and ranges are
 * protovalidate's, in product.proto): a price exact to two decimals, a known category. Shared
 * by single and bulk creation, so both refuse the same input with the same words.
 */
import { randomBytes } from "node:crypto";
import { invalid, notFound } from "@commerce/runtime/errors";
import type { Categories } from "./categories.js";
import { toMinorUnits } from "@commerce/runtime/money";

/** A draft as the request carries it (price and stock are present: the schema requires them). */
export interface ProductDraftInput {
  readonly name: string;
  readonly description: string;
  readonly price?: number | undefined;
  readonly stock?: number | undefined;
  readonly brand: string;
  readonly categoryId: string;
}

/** A checked draft, ready to store. */
export interface NewProduct {
  readonly name: string;
  readonly description: string;
  readonly priceMinor: number;
  readonly stock: number;
  readonly brand: string;
  readonly categoryId: string;
  readonly nameKey: string;
}

/**
 * The 409 rule (ADR 0045): one ACTIVE product per name and brand,
 * compared case-insensitively and without surrounding blanks.
 */
export function nameKeyOf(name: string, brand: string): string {
  return JSON.stringify([name.trim().toLowerCase(), brand.trim().toLowerCase()]);
}

/** The key a deleted product holds instead, so that it no longer blocks its name and brand. */
export function inactiveNameKey(productId: string): string {
  return `inactive:${productId}`;
}

/**
 * Checks `draft`; `path` is how messages name it (`product`, `products[3]`), in the style of
 * the validation interceptor's messages.
 */
export function checkDraft(draft: ProductDraftInput, categories: Categories, path: string): NewProduct {
  const priceMinor = toMinorUnits(draft.price ?? Number.NaN);
  if (priceMinor === undefined) throw invalid(`${path}.price: must have at most two decimals`);
  // A category is something the product refers to, like an order's products: 404 when missing.
  if (categories.byId(draft.categoryId) === undefined) {
    throw notFound(`${path}.categoryId: category "${draft.categoryId}" not found`);
  }
  return {
    name: draft.name,
    description: draft.description,
    priceMinor,
    stock: draft.stock ?? 0,
    brand: draft.brand,
    categoryId: draft.categoryId,
    nameKey: nameKeyOf(draft.name, draft.brand),
  };
}

const skuAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32: no I, L, O, U

/**
 * A new SKU: up to four letters of the category and eight random base32 characters
 * (40 bits), e.g. `ELEC-7K3M9Q2X`. Uniqueness is the unique index's job; a collision retries.
 */
export function generateSku(categoryId: string): string {
  const prefix =
    categoryId
      .replace(/[^a-z]/gi, "")
      .slice(0, 4)
      .toUpperCase() || "PROD";
  const bytes = randomBytes(5);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let code = "";
  for (let i = 0; i < 8; i++) {
    code = (skuAlphabet[Number(bits & 31n)] ?? "0") + code;
    bits >>= 5n;
  }
  return `${prefix}-${code}`;
}

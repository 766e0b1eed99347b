/**
 * What the order and payment benches seed through the public API before they measure: products
 * in bulk (admin) and registered, logged-in customers.
 */
import { jsonOk } from "../testing/loopback-json.js";

/** Creates `count` products of `stock` units each, 100 per bulk request; returns their ids. */
export async function seedProducts(
  baseUrl: string,
  adminToken: string,
  count: number,
  stock: number,
): Promise<string[]> {
  const [category] = (await jsonOk(baseUrl, "GET", "/api/categories")) as { id: string }[];
  if (category === undefined) throw new Error("the platform has no categories");
  const ids: string[] = [];
  const run = Date.now().toString(36);
  for (let start = 0; start < count; start += 100) {
    const drafts = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      name: `Bench product ${run}-${start + i}`,
      price: 1 + ((start + i) % 100) / 4, // 1.00 … 25.75
      stock,
      brand: "Bench",
      categoryId: category.id,
    }));
    const created = (await jsonOk(baseUrl, "POST", "/api/products/bulk", adminToken, drafts)) as {
      ids: string[];
    };
    ids.push(...created.ids);
  }
  return ids;
}

/** Registers and logs in `count` customers; returns their tokens. */
export async function registerBuyers(baseUrl: string, count: number): Promise<string[]> {
  const run = `${Date.now().toString(36)}.${process.pid}`;
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const user = {
        fullName: "Bench Buyer",
        email: `buyer${i}.${run}@bench.test`,
        phoneNo: "+919876543210",
        password: "bench-buyer-password",
      };
      await jsonOk(baseUrl, "POST", "/api/auth/register", undefined, user);
      const { token } = (await jsonOk(baseUrl, "POST", "/api/auth/login", undefined, {
        email: user.email,
        password: user.password,
      })) as { token: string };
      return token;
    }),
  );
}

/**
 * A login flood beside catalog reads, on one platform: 200 connections, 20% of them logging in
 * (POST /api/auth/login, right password) and 80% reading a product, at the same time. Password
 * hashing is bounded (services/auth/src/password-hasher.ts), so the reads must keep their
 * latency while logins queue or are refused with 503 and Retry-After. Figures only.
 */
import { jsonOk } from "../testing/loopback-json.js";
import { formatResult, measure } from "./load.js";

export interface LoginFloodOptions {
  readonly baseUrl: string;
  readonly adminToken: string;
  /** All connections; a fifth of them log in. */
  readonly connections: number;
  readonly seconds: number;
}

export async function benchLoginFlood(options: LoginFloodOptions): Promise<string[]> {
  const { baseUrl } = options;
  const user = {
    fullName: "Flood User",
    email: "flood@example.test",
    phoneNo: "+919876543210",
    password: "flood-password",
  };
  await jsonOk(baseUrl, "POST", "/api/auth/register", undefined, user);
  const brand = "Flood Bench";
  await jsonOk(baseUrl, "POST", "/api/products", options.adminToken, {
    name: "Flood Lamp",
    description: "read during a login flood",
    price: 10,
    stock: 5,
    brand,
    categoryId: "electronics",
  });
  const listed = await jsonOk(baseUrl, "GET", `/api/products?brand=${encodeURIComponent(brand)}`);
  const product = (listed as { content: { id: string }[] }).content[0];
  if (product === undefined) throw new Error("the flood bench's product is not listed");

  const logins = Math.max(1, Math.round(options.connections / 5));
  const [login, read] = await Promise.all([
    measure({
      url: `${baseUrl}/api/auth/login`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: user.email, password: user.password }),
      connections: logins,
      seconds: options.seconds,
    }),
    measure({
      url: `${baseUrl}/api/products/${product.id}`,
      connections: options.connections - logins,
      seconds: options.seconds,
    }),
  ]);
  const total = login.requestsPerSecond + read.requestsPerSecond;
  return [
    formatResult(`POST /api/auth/login, flood (${logins} conn)`, login),
    formatResult(`GET /api/products/{id} meanwhile (${options.connections - logins} conn)`, read),
    `  in all ${Math.round(total).toLocaleString("en-US")} req/s; catalog p99 ${read.p99Ms} ms (target < 50 ms); ` +
      `logins refused for load (503) count as non-2xx`,
  ];
}

/**
 * A crash under order load leaks no stock for longer than the reservation TTL plus 30 seconds,
 * however many orders came before it. The platform (exactly what `npm start` runs, embedded) is
 * killed with SIGKILL while each buyer places orders on a product of their own; orders whose
 * reservation was taken but whose order was never written leave their product short. After a
 * restart on the same data, the stock must again equal the seed minus what the orders that exist
 * hold, within the bound. A crash leaks only when it catches an order in that gap, so the test
 * crashes again (up to `maxCrashes` times) until one did.
 *
 * Before the crashes, `settledOrders` orders are placed: every one leaves a reservation, and a
 * sweeper that had to look at them all first (one page of 100 per 15 s) returned leaked stock
 * only after minutes (ADR 0048).
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { sendJson } from "#testing/loopback-json.js";
import { startPlatformProcess, type PlatformProcess } from "#testing/platform-process.js";

const ttlSeconds = 3;
const boundMs = (ttlSeconds + 30) * 1000;
const seedStock = 1_000_000;
const settledOrders = Number(process.env["CRASH_SETTLED_ORDERS"] ?? 600);
const buyers = 32;
/**
 * A crash leaks only when it catches an order between its reservation and its write. Most runs
 * leak at the first; one CI run had five in a row that leaked nothing.
 */
const maxCrashes = 10;

const admin = { email: "admin@crash.test", password: "crash-admin-password" };

async function login(baseUrl: string, email: string, password: string): Promise<string> {
  const answer = await sendJson(baseUrl, "POST", "/api/auth/login", undefined, { email, password });
  if (answer.status !== 200) throw new Error(`login ${email}: ${answer.status}`);
  return (answer.body as { token: string }).token;
}

async function stockOf(baseUrl: string, productId: string): Promise<number> {
  return ((await sendJson(baseUrl, "GET", `/api/products/${productId}`)).body as { stock: number }).stock;
}

/**
 * Units held by the orders that exist (the list leaves out abandoned ones). Every order of this
 * fresh platform is one unit of one product, so that is their number.
 */
async function unitsOrdered(baseUrl: string, adminToken: string): Promise<number> {
  const orders = (await sendJson(baseUrl, "GET", "/api/orders", adminToken)).body as { status: string }[];
  return orders.filter((order) => order.status !== "CANCELLED").length;
}

/** Buyer i places one-unit orders of product i until `stop` says so. */
async function placeOrders(
  baseUrl: string,
  tokens: readonly string[],
  productIds: readonly string[],
  stop: () => boolean,
): Promise<void> {
  await Promise.all(
    tokens.map(async (token, i) => {
      const productId = productIds[i] ?? "";
      while (!stop()) {
        const answer = await sendJson(baseUrl, "POST", "/api/orders", token, {
          items: [{ productId, quantity: 1 }],
        }).catch(() => undefined); // the crash cuts requests off
        if (answer === undefined) return;
      }
    }),
  );
}

describe("stock leaked by a crash (embedded)", function () {
  this.timeout(5 * 60_000);
  let scratch: string;
  let platform: PlatformProcess | undefined;
  const env = (): NodeJS.ProcessEnv => ({
    DATA_DIR: join(scratch, "data"),
    JWT_SECRET: randomBytes(64).toString("base64url"),
    EDGE_SECRET: randomBytes(32).toString("base64url"),
    PEER_SECRET: randomBytes(32).toString("base64url"),
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    RESERVATION_TTL: `${ttlSeconds}s`,
    // Embedded whatever the caller's environment says: the count of orders must be this run's.
    MONGODB_URL: "",
    KAFKA_BROKERS: "",
    LOG_LEVEL: "error",
  });

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "stock-after-crash-"));
  });
  after(async () => {
    await platform?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it(`returns within the TTL + 30 s after a SIGKILL under load, behind ${settledOrders} settled orders`, async () => {
    const settings = env();
    platform = await startPlatformProcess(settings);
    const adminToken = await login(platform.baseUrl, admin.email, admin.password);
    const brand = `Crash ${randomBytes(4).toString("hex")}`;
    // One product per buyer: no buyer waits behind another's stock, so more orders are between
    // their reservation and their write when the crash comes.
    const created = await sendJson(
      platform.baseUrl,
      "POST",
      "/api/products/bulk",
      adminToken,
      Array.from({ length: buyers }, (_, i) => ({
        name: `Crash lamp ${brand} ${i}`,
        price: 10,
        stock: seedStock,
        brand,
        categoryId: "electronics",
      })),
    );
    expect(created.status).to.equal(201);
    const listed = await sendJson(
      platform.baseUrl,
      "GET",
      `/api/products?brand=${encodeURIComponent(brand)}&size=${buyers}`,
    );
    const productIds = (listed.body as { content: { id: string }[] }).content.map((product) => product.id);
    expect(productIds).to.have.length(buyers);
    const tokens: string[] = [];
    for (let i = 0; i < buyers; i++) {
      const buyer = {
        fullName: `Buyer ${i}`,
        email: `buyer${i}@crash.test`,
        phoneNo: "+919876543210",
        password: "buyer-password",
      };
      expect(
        (await sendJson(platform.baseUrl, "POST", "/api/auth/register", undefined, buyer)).status,
      ).to.equal(201);
      tokens.push(await login(platform.baseUrl, buyer.email, buyer.password));
    }

    // Orders that settle normally, then a crash in the middle of more of them.
    let before = 0;
    await placeOrders(platform.baseUrl, tokens, productIds, () => before++ >= settledOrders);
    const short = async (baseUrl: string, token: string): Promise<number> => {
      let stock = 0;
      for (const productId of productIds) stock += await stockOf(baseUrl, productId);
      return buyers * seedStock - (await unitsOrdered(baseUrl, token)) - stock;
    };
    let leakedAtRestart = 0;
    let restarted = 0;
    let token = "";
    let crashes = 0;
    while (crashes < maxCrashes && leakedAtRestart === 0) {
      crashes++;
      const live = platform;
      const crashAt = Date.now() + 1_500;
      const load = placeOrders(live.baseUrl, tokens, productIds, () => Date.now() > crashAt);
      await delay(1_000);
      await live.kill();
      await load;
      platform = await startPlatformProcess(settings);
      restarted = Date.now();
      token = await login(platform.baseUrl, admin.email, admin.password);
      leakedAtRestart = await short(platform.baseUrl, token);
    }
    let leaked = leakedAtRestart;
    while (leaked !== 0 && Date.now() - restarted < boundMs) {
      await delay(500);
      leaked = await short(platform.baseUrl, token);
    }
    const tookMs = Date.now() - restarted;
    process.stdout.write(
      `      (${crashes} crash${crashes === 1 ? "" : "es"}; leaked at restart: ${leakedAtRestart} units; ` +
        `back after ${(tookMs / 1000).toFixed(1)} s)\n`,
    );
    expect(leaked, "units still missing after the bound").to.equal(0);
    expect(leakedAtRestart, `${maxCrashes} crashes leaked nothing, so nothing was tested`).to.be.greaterThan(
      0,
    );
  });
});

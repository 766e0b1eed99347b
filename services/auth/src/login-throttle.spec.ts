import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedStoreProvider } from "@commerce/runtime/store/embedded-store.js";
import type { StoreProvider } from "@commerce/runtime/store/document-store.js";
import { openAccountCollections } from "./account-store.js";
import { createLoginThrottle, type LoginThrottle } from "./login-throttle.js";

describe("createLoginThrottle", () => {
  let dir: string;
  let provider: StoreProvider;
  let throttle: LoginThrottle;
  const policy = { maxFailures: 3, windowMs: 60_000 };
  const t0 = new Date("2026-05-01T10:00:00Z");
  const at = (ms: number): Date => new Date(t0.getTime() + ms);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "throttle-"));
    provider = createEmbeddedStoreProvider({ dataDir: dir });
    const { loginFailures } = await openAccountCollections(await provider.open("auth"));
    throttle = createLoginThrottle(loginFailures, policy);
  });
  afterEach(async () => {
    await provider.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("allows attempts until maxFailures failures fall within the window", async () => {
    await throttle.recordFailure("a@x.test", at(0));
    await throttle.recordFailure("a@x.test", at(1_000));
    expect(await throttle.retryAfter("a@x.test", at(2_000))).to.equal(0);
    await throttle.recordFailure("a@x.test", at(2_000));
    expect(await throttle.retryAfter("a@x.test", at(3_000))).to.equal(57);
  });

  it("lets the account in again once the oldest counted failure leaves the window", async () => {
    for (const ms of [0, 10_000, 20_000]) await throttle.recordFailure("a@x.test", at(ms));
    expect(await throttle.retryAfter("a@x.test", at(59_999))).to.equal(1);
    expect(await throttle.retryAfter("a@x.test", at(60_000))).to.equal(0);
  });

  it("counts each email separately and forgets an account's failures on reset", async () => {
    for (const ms of [0, 1, 2]) await throttle.recordFailure("a@x.test", at(ms));
    expect(await throttle.retryAfter("b@x.test", at(10))).to.equal(0);
    await throttle.reset("a@x.test");
    expect(await throttle.retryAfter("a@x.test", at(10))).to.equal(0);
  });

  it("sweeps only failures older than the window", async () => {
    await throttle.recordFailure("a@x.test", at(0));
    await throttle.recordFailure("b@x.test", at(30_000));
    expect(await throttle.sweep(at(70_000))).to.equal(1);
    expect(await throttle.sweep(at(70_000))).to.equal(0);
    expect(await throttle.sweep(at(90_000))).to.equal(1);
  });
});

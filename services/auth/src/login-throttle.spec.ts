import { expect } from "chai";
import { testStoreBackends, type TestStore } from "@commerce/runtime/testing";
import { openAccountCollections } from "./account-store.js";
import { createLoginThrottle, type LoginThrottle } from "./login-throttle.js";

for (const backend of testStoreBackends("services/auth/src/login-throttle.spec.ts")) {
  describe(`createLoginThrottle (${backend.name})`, () => {
    let opened: TestStore;
    let throttle: LoginThrottle;
    const policy = { maxAttempts: 3, windowMs: 60_000 };
    const t0 = new Date("2026-05-01T10:00:00Z");
    const at = (ms: number): Date => new Date(t0.getTime() + ms);

    beforeEach(async () => {
      opened = await backend.open();
      const { loginAttempts } = await openAccountCollections(opened.store);
      throttle = createLoginThrottle(loginAttempts, policy);
    });
    afterEach(() => opened.close());

    it("grants maxAttempts checks within the window, then says when the oldest leaves it", async () => {
      expect(await throttle.claim("a@x.test", at(0))).to.equal(0);
      expect(await throttle.claim("a@x.test", at(1_000))).to.equal(0);
      expect(await throttle.claim("a@x.test", at(2_000))).to.equal(0);
      expect(await throttle.claim("a@x.test", at(3_000))).to.equal(57);
      expect(await throttle.claim("a@x.test", at(59_999))).to.equal(1);
      expect(await throttle.claim("a@x.test", at(60_000))).to.equal(0);
      expect(await throttle.claim("a@x.test", at(60_001))).to.equal(1);
    });

    it("grants exactly maxAttempts of 50 concurrent claims for one email", async () => {
      const waits = await Promise.all(Array.from({ length: 50 }, () => throttle.claim("a@x.test", at(0))));
      expect(waits.filter((wait) => wait === 0)).to.have.length(3);
      expect(waits.filter((wait) => wait === 60)).to.have.length(47);
    });

    it("grants exactly one of 20 concurrent claims on an expired slot", async () => {
      for (const ms of [0, 10_000, 20_000]) await throttle.claim("a@x.test", at(ms));
      const waits = await Promise.all(
        Array.from({ length: 20 }, () => throttle.claim("a@x.test", at(60_000))),
      );
      expect(waits.filter((wait) => wait === 0)).to.have.length(1);
    });

    it("counts each email separately, and a reset frees an account's attempts", async () => {
      for (const ms of [0, 1, 2]) await throttle.claim("a@x.test", at(ms));
      expect(await throttle.claim("b@x.test", at(10))).to.equal(0);
      expect(await throttle.claim("a@x.test", at(10))).to.be.greaterThan(0);
      await throttle.reset("a@x.test");
      expect(await throttle.claim("a@x.test", at(10))).to.equal(0);
    });

    it("sweeps only slots whose attempt left the window, and claims go on after a sweep", async () => {
      await throttle.claim("a@x.test", at(0));
      await throttle.claim("b@x.test", at(30_000));
      expect(await throttle.sweep(at(70_000))).to.equal(1);
      expect(await throttle.sweep(at(70_000))).to.equal(0);
      expect(await throttle.sweep(at(90_000))).to.equal(1);
      for (const ms of [0, 1, 2]) expect(await throttle.claim("a@x.test", at(100_000 + ms))).to.equal(0);
      expect(await throttle.claim("a@x.test", at(100_003))).to.equal(60);
    });
  });
}

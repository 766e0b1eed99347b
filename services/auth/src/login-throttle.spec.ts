import { expect } from "chai";
import { testStoreBackends, type TestStore } from "@commerce/runtime/testing";
import { openAccountCollections, type AccountCollections } from "./account-store.js";
import {
  addressGroup,
  createLoginThrottle,
  emailDigest,
  defaultLoginThrottlePolicy as policy,
  type ClaimOutcome,
  type LoginClaim,
  type LoginThrottle,
} from "./login-throttle.js";

const minute = 60_000;

/** The seconds a refused claim waits; 0 for a granted one. */
const waitOf = (outcome: ClaimOutcome): number => (outcome.granted ? 0 : outcome.waitSeconds);

function granted(outcome: ClaimOutcome): LoginClaim {
  if (!outcome.granted) throw new Error(`refused: wait ${outcome.waitSeconds} s`);
  return outcome.claim;
}

describe("addressGroup", () => {
  it("keys an IPv4 address as itself and an IPv6 address by its /64", () => {
    expect(addressGroup("127.0.0.2")).to.equal("127.0.0.2");
    expect(addressGroup("2001:db8:1:2:aaaa::1")).to.equal("2001:db8:1:2::/64");
    expect(addressGroup("2001:db8:1:2:bbbb:cccc:dddd:eeee")).to.equal("2001:db8:1:2::/64");
    expect(addressGroup("2001:db8::1")).to.equal("2001:db8:0:0::/64");
    expect(addressGroup("::1")).to.equal("0:0:0:0::/64");
    expect(addressGroup(undefined)).to.equal(undefined);
  });
});

for (const backend of testStoreBackends("services/auth/src/login-throttle.spec.ts")) {
  describe(`createLoginThrottle (${backend.name}), with the default policy`, function () {
    this.timeout(60_000);
    let opened: TestStore;
    let collections: AccountCollections;
    let throttle: LoginThrottle;
    const t0 = new Date("2026-05-01T10:00:00Z").getTime();
    const at = (ms: number): Date => new Date(t0 + ms);
    const email = "owner@x.test";
    /** The owner's account; other emails have none. */
    const ownerId = 1;
    const attempt = (who: string, address: string, accountId = who === email ? ownerId : undefined) => ({
      email: who,
      address,
      accountId,
    });

    beforeEach(async () => {
      opened = await backend.open();
      collections = await openAccountCollections(opened.store);
      throttle = createLoginThrottle(
        {
          buckets: collections.loginThrottles,
          knownAddresses: collections.knownAddresses,
          formerAttempts: collections.formerLoginAttempts,
        },
        policy,
      );
    });
    afterEach(() => opened.close());

    /** `count` failed checks from `address`, one every `everyMs` from `fromMs`. */
    async function failures(address: string, count: number, fromMs = 0, everyMs = 0): Promise<number[]> {
      const waits: number[] = [];
      for (let i = 0; i < count; i++) {
        waits.push(waitOf(await throttle.claim(attempt(email, address), at(fromMs + i * everyMs))));
      }
      return waits;
    }

    it("checks 5 passwords of an account from one address, then waits 30 s after the latest, twice as long each time", async () => {
      expect(await failures("127.0.0.2", 6)).to.deep.equal([0, 0, 0, 0, 0, 30]);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.2"), at(29_000)))).to.equal(1);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.2"), at(30_000)))).to.equal(0);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.2"), at(30_001)))).to.equal(60);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.2"), at(90_000)))).to.equal(0);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.2"), at(90_000)))).to.equal(120);
    });

    it("after 50 wrong passwords from one address, checks the owner's password from another address at once", async () => {
      const waits = await failures("127.0.0.2", 50, 0, 20);
      expect(waits.filter((wait) => wait === 0)).to.have.length(5);
      expect(waits.slice(5).every((wait) => wait >= 29 && wait <= 30)).to.equal(true);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.1"), at(1_000)))).to.equal(0);
    });

    it("slows one address guessing for a day to a guess per 15 minutes, and the owner elsewhere never waits", async () => {
      let now = 0;
      let checks = 0;
      while (now < 24 * 60 * minute) {
        const outcome = await throttle.claim(attempt(email, "127.0.0.2"), at(now));
        if (outcome.granted) checks += 1;
        now += outcome.granted ? 0 : outcome.waitSeconds * 1000;
      }
      // 5 at once, then after 30 s, 1, 2, 4 and 8 min, and from then on one per 15 minutes.
      expect(checks).to.equal(105);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.2"), at(now)))).to.equal(0);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.2"), at(now)))).to.equal(900);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.1"), at(now)))).to.equal(0);
    });

    it("many addresses at one account: past 20 checks a new address waits, one the account logged in from does not", async () => {
      const home = "198.51.100.7";
      await throttle.succeeded(granted(await throttle.claim(attempt(email, home), at(1))));
      for (let i = 1; i <= 20; i++) {
        expect(
          waitOf(await throttle.claim(attempt(email, `203.0.113.${i}`), at(1_000))),
          `address ${i}`,
        ).to.equal(0);
      }
      expect(waitOf(await throttle.claim(attempt(email, "203.0.113.21"), at(1_000)))).to.equal(30);
      expect(waitOf(await throttle.claim(attempt(email, home), at(1_000)))).to.equal(0);
      // The account's bucket forgives one check per 3 minutes: an hour later new addresses go again.
      expect(waitOf(await throttle.claim(attempt(email, "203.0.113.22"), at(60 * minute)))).to.equal(0);
    });

    it("knows an address for the account that logged in from it, not for a later account with the same email", async () => {
      const home = "198.51.100.8";
      await throttle.succeeded(granted(await throttle.claim(attempt(email, home), at(0))));
      for (let i = 1; i <= 20; i++)
        granted(await throttle.claim(attempt(email, `203.0.113.${i}`), at(1_000)));
      // The account was deleted and its email registered again: a new id, no known address.
      expect(waitOf(await throttle.claim(attempt(email, home, 2), at(1_000)))).to.equal(30);
      expect(waitOf(await throttle.claim(attempt(email, home, ownerId), at(1_000)))).to.equal(0);
    });

    it("one address across accounts: past 100 failed checks every account waits there, and not elsewhere", async () => {
      const stuffer = "192.0.2.1";
      for (let i = 0; i < 100; i++) {
        expect(
          waitOf(await throttle.claim(attempt(`${i}.${email}`, stuffer), at(0))),
          `account ${i}`,
        ).to.equal(0);
      }
      expect(waitOf(await throttle.claim(attempt(email, stuffer), at(0)))).to.equal(30);
      expect(waitOf(await throttle.claim(attempt(email, "192.0.2.2"), at(0)))).to.equal(0);
    });

    it("a success forgives the account's failures from that address and costs the shared buckets nothing", async () => {
      expect(await failures("127.0.0.3", 4)).to.deep.equal([0, 0, 0, 0]);
      await throttle.succeeded(granted(await throttle.claim(attempt(email, "127.0.0.3"), at(10))));
      expect(await failures("127.0.0.3", 6, 20)).to.deep.equal([0, 0, 0, 0, 0, 30]);
      // The address's bucket holds the 9 failures only; the account's, none (the address is known).
      const address = await collections.loginThrottles.get("address 127.0.0.3");
      expect(Math.ceil(((address?.debtUntil ?? 0) - (t0 + 30)) / policy.address.forgiveMs)).to.equal(9);
      const account = await collections.loginThrottles.get(`account ${emailDigest(email)}`);
      expect(account?.debtUntil).to.be.at.most(t0 + 10 + 4 * policy.account.forgiveMs);
    });

    it("checks exactly 5 of 50 concurrent logins of one account from one address", async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () => throttle.claim(attempt(email, "127.0.0.4"), at(0))),
      );
      expect(outcomes.filter((outcome) => outcome.granted)).to.have.length(5);
      expect(outcomes.filter((outcome) => !outcome.granted).every((o) => waitOf(o) >= 1)).to.equal(true);
    });

    it("checks exactly 20 of 30 concurrent logins of one account from 30 new addresses", async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => throttle.claim(attempt(email, `203.0.113.${100 + i}`), at(0))),
      );
      expect(outcomes.filter((outcome) => outcome.granted)).to.have.length(20);
    });

    it("keys an IPv6 client by its /64", async () => {
      expect(await failures("2001:db8:7:7::1", 5)).to.deep.equal([0, 0, 0, 0, 0]);
      expect(waitOf(await throttle.claim(attempt(email, "2001:db8:7:7:ffff::2"), at(0)))).to.equal(30);
      expect(waitOf(await throttle.claim(attempt(email, "2001:db8:7:8::1"), at(0)))).to.equal(0);
    });

    it("sweeps buckets that hold nothing, known addresses that expired and the former slots; claims go on after it", async () => {
      await collections.formerLoginAttempts.insert({ _id: `${email}#0` });
      await throttle.succeeded(granted(await throttle.claim(attempt(email, "127.0.0.5"), at(0))));
      expect(await failures("127.0.0.6", 6)).to.deep.equal([0, 0, 0, 0, 0, 30]);
      const swept = await throttle.sweep(at(30 * minute));
      // The pair bucket of 127.0.0.5 (emptied by the success) and its address's (refunded),
      // and the former slot; 127.0.0.6's buckets still hold checks.
      expect(swept).to.be.at.least(3);
      expect(await collections.loginThrottles.get(`pair ${emailDigest(email)} 127.0.0.5`)).to.equal(
        undefined,
      );
      expect(await collections.loginThrottles.get(`pair ${emailDigest(email)} 127.0.0.6`)).to.not.equal(
        undefined,
      );
      expect(await collections.formerLoginAttempts.get(`${email}#0`)).to.equal(undefined);
      expect(await collections.knownAddresses.get(`${ownerId} 127.0.0.5`)).to.not.equal(undefined);
      expect(waitOf(await throttle.claim(attempt(email, "127.0.0.6"), at(30 * minute)))).to.equal(0);
      await throttle.sweep(at(policy.knownForMs + minute));
      expect(await collections.knownAddresses.get(`${ownerId} 127.0.0.5`)).to.equal(undefined);
      expect(await collections.loginThrottles.get(`pair ${emailDigest(email)} 127.0.0.6`)).to.equal(
        undefined,
      );
    });
  });
}

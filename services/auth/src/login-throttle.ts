/**
 * Slows down password guessing without ever locking the owner out (ADR 0115). Every login
 * claims its password check from up to three buckets (throttle-rule.ts) before the password is
 * compared:
 *   - the account from this client address (`pair`): the owner's own typos, or one attacker at
 *     one account; a successful login empties it;
 *   - the client address, whatever the account (`address`): credential stuffing from one
 *     address;
 *   - the account, from any address it has not logged in from lately (`account`): many
 *     addresses at one account. An address the account logged in from in the last
 *     `knownForMs` is not charged there, so an attack from elsewhere never slows the owner down
 *     where the owner usually logs in. Known addresses belong to the account's id, which is
 *     never reused: a later account with the same email knows none of them.
 * A check waits (429) when any of its buckets says so; a check that gets through is charged to
 * each, and a success takes back its charge from the two shared buckets. Unknown emails are
 * throttled exactly like accounts (their keys are the email), so the throttle tells nothing
 * about existence. An IPv6 client is keyed by its /64, which a single host holds.
 *
 * Concurrency (ADR 0030, ADR 0115): a bucket is one document, created by a unique insert and changed only
 * by compare-and-set on its version (changeDocument), both atomic on every backend; a charge
 * re-reads and re-decides when it loses, so concurrent logins cannot take more checks than the
 * rule allows. A charge that keeps losing to others answers 429 as well (never a check more).
 *
 * Buckets that hold nothing are swept, retired by compare-and-set first so that the deletion
 * never removes a bucket a login has just charged (logins leave retired buckets alone); known
 * addresses are swept once they expire.
 */
import { createHash } from "node:crypto";
import { DomainError } from "@commerce/runtime/errors";
import {
  changeDocument,
  DuplicateKeyError,
  type Collection,
  type StoredDocument,
  unchanged,
} from "@commerce/runtime/store";
import type { KnownAddressDocument, LoginThrottleDocument } from "./account-store.js";
import {
  type Charge,
  charged,
  forgiven,
  refunded,
  type ThrottleRule,
  type ThrottleState,
  waitMs,
} from "./throttle-rule.js";

export interface LoginThrottlePolicy {
  /** Per account and client address. */
  readonly pair: ThrottleRule;
  /** Per client address, across accounts. */
  readonly address: ThrottleRule;
  /** Per account, from the addresses it has not logged in from within `knownForMs`. */
  readonly account: ThrottleRule;
  /** How long an address stays known to an account after a successful login from it. */
  readonly knownForMs: number;
}

const second = 1000;
const minute = 60 * second;

/** The policy ADR 0115 argues for. */
export const defaultLoginThrottlePolicy: LoginThrottlePolicy = {
  pair: { free: 5, firstDelayMs: 30 * second, maxDelayMs: 15 * minute, forgiveMs: 15 * minute },
  address: { free: 100, firstDelayMs: 30 * second, maxDelayMs: 15 * minute, forgiveMs: minute },
  account: { free: 20, firstDelayMs: 30 * second, maxDelayMs: 15 * minute, forgiveMs: 3 * minute },
  knownForMs: 30 * 24 * 60 * minute,
};

/** A login to throttle: the email it names, the client's address, and the account if one exists. */
export interface LoginAttempt {
  readonly email: string;
  /** As the edge names it; undefined when no edge did (such logins share one bucket). */
  readonly address: string | undefined;
  /** The account of `email`, when there is one (its known addresses are looked up). */
  readonly accountId: number | undefined;
}

/** What a granted check was charged, to settle it once the password was compared. */
export interface LoginClaim {
  readonly email: string;
  readonly accountId: number | undefined;
  readonly group: string | undefined;
  readonly now: number;
  /** The charges a success takes back: the address's and, from an unknown address, the account's. */
  readonly shared: readonly { readonly key: string; readonly rule: ThrottleRule; readonly charge: Charge }[];
}

export type ClaimOutcome =
  | { readonly granted: true; readonly claim: LoginClaim }
  | { readonly granted: false; readonly waitSeconds: number };

export interface LoginThrottle {
  /** Claims one password check for `login` at `now`. */
  claim(login: LoginAttempt, now: Date, signal?: AbortSignal): Promise<ClaimOutcome>;
  /** The password was right: empties the pair's bucket, takes back the shared charges, and remembers the address. */
  succeeded(claim: LoginClaim, signal?: AbortSignal): Promise<void>;
  /** Deletes buckets that hold nothing and addresses no longer known, at most `limit` of each per call. */
  sweep(now: Date, limit?: number): Promise<number>;
}

export interface LoginThrottleStore {
  readonly buckets: Collection<LoginThrottleDocument>;
  readonly knownAddresses: Collection<KnownAddressDocument>;
  /** The former throttle's attempt slots (ADR 0030), deleted by the sweep. */
  readonly formerAttempts?: Collection<StoredDocument>;
}

/** The bucket key of a client address: an IPv4 address, or the /64 of an IPv6 one. */
export function addressGroup(address: string | undefined): string | undefined {
  if (address === undefined || !address.includes(":")) return address;
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const groupsOf = (part: string | undefined): string[] =>
    part === undefined || part === "" ? [] : part.split(":");
  const front = groupsOf(head);
  const back = groupsOf(tail);
  const groups = [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  const prefix = groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, ""));
  return `${prefix.join(":")}::/64`;
}

/** How long a login waits for a bucket that the sweeper is deleting, and how often. */
const retiredPauseMs = 20;
const retiredAttempts = 3;
/** A known address is refreshed at most this often (a write per login would be wasted). */
const refreshKnownMs = 24 * 60 * minute;
/** The key of logins no edge named an address for. */
const unattributed = "unattributed";

class Refused extends Error {
  constructor(readonly waitMs: number) {
    super("the bucket refuses a check now");
  }
}
class Retired extends Error {}

const stateOf = (doc: LoginThrottleDocument): ThrottleState => ({
  debtUntil: doc.debtUntil,
  lastAt: doc.lastAt,
});

/**
 * How a bucket names an email: its SHA-256, so that a bucket's key holds no address in the clear
 * and no character a store cannot hold (a login may name any text as its email; PostgreSQL's
 * jsonb, under FerretDB, refuses U+0000).
 */
export function emailDigest(email: string): string {
  return createHash("sha256").update(email).digest("hex");
}

export function createLoginThrottle(store: LoginThrottleStore, policy: LoginThrottlePolicy): LoginThrottle {
  const { buckets, knownAddresses } = store;
  const pairKey = (email: string, group: string): string => `pair ${emailDigest(email)} ${group}`;
  const addressKey = (group: string): string => `address ${group}`;
  const accountKey = (email: string): string => `account ${emailDigest(email)}`;
  const knownKey = (accountId: number, group: string): string => `${accountId} ${group}`;

  async function isKnown(
    accountId: number | undefined,
    group: string | undefined,
    now: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (accountId === undefined || group === undefined) return false;
    const known = await knownAddresses.get(knownKey(accountId, group), signal);
    return known !== undefined && known.expiresAt > now;
  }

  /**
   * Charges one check to the bucket `key` at `now`, or says how long to wait. `seen` is the
   * bucket as the claim has just read it (undefined: there was none), which spares a read.
   */
  async function charge(
    key: string,
    rule: ThrottleRule,
    now: number,
    seen: LoginThrottleDocument | undefined,
    signal?: AbortSignal,
  ): Promise<{ charge: Charge } | { waitMs: number }> {
    for (let attempt = 1; attempt <= retiredAttempts; attempt++) {
      let previousLastAt = 0;
      try {
        const outcome =
          attempt === 1 && seen === undefined
            ? undefined
            : await changeDocument(
                buckets,
                key,
                (current) => {
                  if (current.retired) throw new Retired();
                  const wait = waitMs(rule, stateOf(current), now);
                  if (wait > 0) throw new Refused(wait);
                  previousLastAt = current.lastAt;
                  return { ...current, ...charged(rule, stateOf(current), now) };
                },
                signal,
                attempt === 1 ? seen : undefined,
              );
        if (outcome !== undefined) return { charge: { at: now, previousLastAt } };
        await buckets.insert({ _id: key, _v: 1, ...charged(rule, undefined, now), retired: false }, signal);
        return { charge: { at: now, previousLastAt: 0 } };
      } catch (error) {
        if (error instanceof Refused) return { waitMs: error.waitMs };
        // Another login created it first, or the sweeper is deleting it: decide again.
        if (error instanceof DuplicateKeyError) continue;
        if (error instanceof Retired) {
          await new Promise((resolve) => setTimeout(resolve, retiredPauseMs));
          continue;
        }
        // Lost every compare-and-set to concurrent logins: too many at once, so wait too.
        if (error instanceof DomainError && error.kind === "conflict") return { waitMs: second };
        throw error;
      }
    }
    return { waitMs: second };
  }

  async function refund(key: string, rule: ThrottleRule, given: Charge, signal?: AbortSignal) {
    try {
      await changeDocument(
        buckets,
        key,
        (current) =>
          current.retired ? unchanged : { ...current, ...refunded(rule, stateOf(current), given) },
        signal,
      );
    } catch (error) {
      // A charge kept is the safe side: the bucket forgives it in time.
      if (!(error instanceof DomainError && error.kind === "conflict")) throw error;
    }
  }

  async function remember(accountId: number, group: string, now: number, signal?: AbortSignal) {
    const id = knownKey(accountId, group);
    const fresh = { lastLoginAt: now, expiresAt: now + policy.knownForMs };
    const known = await knownAddresses.get(id, signal);
    if (known === undefined) {
      try {
        await knownAddresses.insert({ _id: id, _v: 1, ...fresh }, signal);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error; // a concurrent login remembered it
      }
    } else if (known.lastLoginAt + refreshKnownMs <= now) {
      // A lost race means a concurrent login refreshed it.
      await knownAddresses.swap({ ...known, ...fresh, _v: known._v + 1 }, known._v, signal);
    }
  }

  return {
    async claim({ email, address, accountId }, at, signal) {
      const now = at.getTime();
      const group = addressGroup(address);
      const bucketOf = group ?? unattributed;
      const known = await isKnown(accountId, group, now, signal);
      const rules: { key: string; rule: ThrottleRule }[] = [
        { key: pairKey(email, bucketOf), rule: policy.pair },
        { key: addressKey(bucketOf), rule: policy.address },
        ...(known ? [] : [{ key: accountKey(email), rule: policy.account }]),
      ];
      // A refusal costs no charge: the buckets are read first, and most refused logins stop here.
      const current = await Promise.all(rules.map(({ key }) => buckets.get(key, signal)));
      const waits = rules.map(({ rule }, i) => {
        const doc = current[i];
        return doc === undefined ? 0 : waitMs(rule, stateOf(doc), now);
      });
      const readWait = Math.max(...waits);
      if (readWait > 0) return { granted: false, waitSeconds: Math.ceil(readWait / second) };

      const made: { key: string; rule: ThrottleRule; charge: Charge }[] = [];
      for (const [i, { key, rule }] of rules.entries()) {
        const outcome = await charge(key, rule, now, current[i], signal);
        if ("waitMs" in outcome) {
          // Another login got there first: this check is not made, so its charges go back.
          for (const done of made.reverse()) await refund(done.key, done.rule, done.charge, signal);
          return { granted: false, waitSeconds: Math.max(1, Math.ceil(outcome.waitMs / second)) };
        }
        made.push({ key, rule, charge: outcome.charge });
      }
      return { granted: true, claim: { email, accountId, group, now, shared: made.slice(1) } };
    },

    async succeeded(claim, signal) {
      const { email, accountId, group, now } = claim;
      await changeDocument(
        buckets,
        pairKey(email, group ?? unattributed),
        (current) => (current.retired ? unchanged : { ...current, ...forgiven(stateOf(current), now) }),
        signal,
      ).catch((error: unknown) => {
        if (!(error instanceof DomainError && error.kind === "conflict")) throw error;
      });
      for (const { key, rule, charge: given } of claim.shared) await refund(key, rule, given, signal);
      if (accountId !== undefined && group !== undefined) await remember(accountId, group, now, signal);
    },

    async sweep(at, limit = 500) {
      const now = at.getTime();
      let deleted = 0;
      for (const bucket of await buckets.find({ debtUntil: { $lte: now } }, { limit })) {
        const retiring =
          bucket.retired || (await buckets.swap({ ...bucket, retired: true, _v: bucket._v + 1 }, bucket._v));
        if (retiring && (await buckets.delete(bucket._id))) deleted++;
      }
      for (const known of await knownAddresses.find({ expiresAt: { $lte: now } }, { limit })) {
        if (await knownAddresses.delete(known._id)) deleted++;
      }
      for (const former of (await store.formerAttempts?.find({}, { limit })) ?? []) {
        if (await store.formerAttempts?.delete(former._id)) deleted++;
      }
      return deleted;
    },
  };
}

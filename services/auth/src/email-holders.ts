/**
 * Which account held an email when a document naming it was made (ADR 0101). Documents written
 * before owners were kept by id name their owner only by email, and an email passes to a new
 * account once its holder is deleted; the services' migrations ask here, and a document goes to
 * an account only when nothing else could have made it.
 *
 * The answer for an email and a time `t` is the account that holds the email now, when
 *   - it was created before `t` (to within `clockToleranceMs`: the document's time is another
 *     process's clock) and its deletion, if one began, began after `t`;
 *   - and every former holder of the email was deleted more than a token's lifetime
 *     (`JWT_TTL`) plus that tolerance before `t`: a deleted account's token is refused
 *     everywhere within seconds, but even one whose revocation never arrived has expired by
 *     then, so nothing made later can be the former holder's.
 * With no time (`t` = 0: the document does not say when it was made), the holder is the answer
 * only when the email never had another. Otherwise the answer is 0: nobody (the document
 * stays the shop's, reachable only by admins). A deleted holder is never the answer: its
 * tokens are refused for good, so giving it its documents would change nothing.
 */
import { unavailable } from "@commerce/runtime/errors";
import type { Collection } from "@commerce/runtime/store";
import type { AccountDocument, FormerAccountDocument } from "./account-store.js";

/** An email as a document recorded it, and when the document was made (epoch ms, 0 unknown). */
export interface EmailAt {
  readonly email: string;
  readonly atMs: number;
}

export interface EmailHolders {
  /**
   * The user id of each query's holder, in order, 0 where it cannot be established.
   * UNAVAILABLE until the service knows every deleted account it can (`ready`).
   */
  find(queries: readonly EmailAt[], signal?: AbortSignal): Promise<number[]>;
}

export interface EmailHoldersDeps {
  readonly accounts: Pick<Collection<AccountDocument>, "find">;
  readonly formerAccounts: Pick<Collection<FormerAccountDocument>, "find">;
  /** The tokens' lifetime (JWT_TTL). */
  readonly tokenTtlMs: number;
  /** Whether the former accounts are complete (the service's migrations are done). */
  readonly ready: () => boolean;
}

/** How far apart two of the platform's clocks may be (an assumption: ADR 0101). */
export const clockToleranceMs = 60_000;

/** Epoch ms of a UTC wall-clock timestamp (YYYY-MM-DDTHH:MM:SS); NaN when unreadable. */
function wallClockMs(timestamp: string): number {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(timestamp) ? Date.parse(`${timestamp}Z`) : NaN;
}

export function createEmailHolders(deps: EmailHoldersDeps): EmailHolders {
  /** The user id that held `email` at `atMs` by the module's rule, or 0. */
  function holderAt(
    atMs: number,
    live: AccountDocument | undefined,
    formers: readonly FormerAccountDocument[],
  ): number {
    if (live === undefined) return 0;
    if (atMs === 0) return formers.length === 0 && live.deletedAt === undefined ? live._id : 0;
    const created = wallClockMs(live.createdAt);
    if (!(atMs >= created - clockToleranceMs)) return 0; // made before the account (or unreadable)
    if (live.deletedAt !== undefined && !(atMs < wallClockMs(live.deletedAt) - clockToleranceMs)) return 0;
    for (const former of formers) {
      // An unreadable deletion time compares as never: the former holder may have made it.
      if (!(atMs > wallClockMs(former.deletedAt) + deps.tokenTtlMs + clockToleranceMs)) return 0;
    }
    return live._id;
  }

  return {
    async find(queries, signal) {
      if (!deps.ready()) throw unavailable("the accounts' history is being migrated; retry");
      const emails = [...new Set(queries.map((query) => query.email.trim().toLowerCase()))];
      const options = signal === undefined ? {} : { signal };
      const [live, formers] = await Promise.all([
        deps.accounts.find({ email: { $in: emails } }, options),
        deps.formerAccounts.find({ email: { $in: emails } }, options),
      ]);
      const liveByEmail = new Map(live.map((account) => [account.email, account]));
      const formersByEmail = new Map<string, FormerAccountDocument[]>();
      for (const former of formers) {
        formersByEmail.set(former.email, [...(formersByEmail.get(former.email) ?? []), former]);
      }
      return queries.map(({ email, atMs }) => {
        const normalized = email.trim().toLowerCase();
        return holderAt(atMs, liveByEmail.get(normalized), formersByEmail.get(normalized) ?? []);
      });
    },
  };
}

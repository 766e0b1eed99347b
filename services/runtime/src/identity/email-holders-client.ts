/**
 * Asking the Auth service which account held each email when a document was made
 * (`AccountService/FindEmailHolders`, ADR 0101), as the owner backfills do: in calls of at most
 * the RPC's 500 queries, each waited for while Auth is starting or migrating (`patientPeerCall`).
 */
import type { Client } from "@connectrpc/connect";
import { patientPeerCall } from "../resilience/patient-call.js";
import type { AccountService } from "../../gen/commerce/auth/v1/account_pb.js";

/** An email as a document recorded it, and when the document was made (epoch ms; 0: unknown). */
export interface EmailAtTime {
  readonly email: string;
  readonly atMs: number;
}

/** The most queries one call carries (the RPC's bound). */
const queriesPerCall = 500;

/** The user id that held each query's email then, in order; 0 where none certainly did. */
export async function emailHoldersOf(
  accounts: Client<typeof AccountService>,
  queries: readonly EmailAtTime[],
  signal: AbortSignal,
): Promise<number[]> {
  const holders: number[] = [];
  for (let start = 0; start < queries.length; start += queriesPerCall) {
    const some = queries.slice(start, start + queriesPerCall);
    const { userIds } = await patientPeerCall(
      (callSignal) =>
        accounts.findEmailHolders(
          { queries: some.map(({ email, atMs }) => ({ email, atMs: BigInt(Math.floor(atMs)) })) },
          callSignal === undefined ? {} : { signal: callSignal },
        ),
      { signal },
    );
    holders.push(...some.map((_, i) => userIds[i] ?? 0));
  }
  return holders;
}

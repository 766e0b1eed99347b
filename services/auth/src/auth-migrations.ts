/**
 * The Auth service's document migrations (runtime store/document-migrations.ts), applied at
 * start before it answers FindEmailHolders:
 *
 * 1. Former accounts from the revocation feed. Deletions made before former accounts were kept
 *    are known to the process's revocation feed (`revoked_accounts`, every USER_DELETED since
 *    ADR 0034, with the email and when): each becomes a former account, its creation time
 *    unknown. Idempotent: the user id is the former account's `_id`.
 */
import {
  DuplicateKeyError,
  forEachBatch,
  type Collection,
  type DocumentMigration,
} from "@commerce/runtime/store";
import type { RevokedAccountDocument } from "@commerce/runtime/identity";
import type { FormerAccountDocument } from "./account-store.js";

export interface AuthMigrationsDeps {
  readonly formerAccounts: Collection<FormerAccountDocument>;
  /** The deleted accounts the process's revocation feed stored. */
  readonly revokedAccounts: Pick<Collection<RevokedAccountDocument>, "find">;
}

export function authMigrations(deps: AuthMigrationsDeps): readonly DocumentMigration[] {
  return [
    {
      version: 1,
      description: "former accounts from the deleted accounts the revocation feed stored",
      async run(signal) {
        await forEachBatch(
          deps.revokedAccounts,
          {},
          async (batch) => {
            for (const revoked of batch) {
              try {
                await deps.formerAccounts.insert(
                  { _id: revoked._id, email: revoked.email, createdAt: "", deletedAt: revoked.deletedAt },
                  signal,
                );
              } catch (error) {
                if (!(error instanceof DuplicateKeyError)) throw error; // kept already
              }
            }
          },
          { signal },
        );
      },
    },
  ];
}

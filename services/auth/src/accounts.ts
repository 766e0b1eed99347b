/**
 * The Auth domain: registration, login, the operator's admin account, and account deletion.
 */
import { create } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import {
  type Collection,
  DuplicateKeyError,
  insertWithNextId,
  type IdClaimDocument,
  unchanged,
} from "@commerce/runtime/store";
import { conflict, DomainError, notFound, throttled, unauthenticated } from "@commerce/runtime/errors";
import type { EventFactory, RecordedCollection, ServiceOutbox } from "@commerce/runtime/events";
import type { Role } from "@commerce/runtime/identity";
import type { Logger } from "@commerce/runtime/logging";
import { formatTimestamp, type Clock } from "@commerce/runtime/time";
import {
  UserDeletedSchema,
  UserLoginSchema,
  UserRegisteredSchema,
  UserRoleChangedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import type { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import type { AccountDocument, FormerAccountDocument } from "./account-store.js";
import { keepingTrace } from "@commerce/runtime/telemetry";
import type { LoginClaim, LoginThrottle } from "./login-throttle.js";
import type { PasswordHasher } from "./password-hasher.js";
import type { TokenIssuer } from "./token-issuer.js";

export interface AccountsDeps {
  /** Accounts, written with their events (USER_REGISTERED) in the same write. */
  readonly accounts: RecordedCollection<AccountDocument>;
  /** Every user id ever handed out: ids are never reused. */
  readonly accountIds: Collection<IdClaimDocument>;
  /** The accounts deleted, each kept with its email for good. */
  readonly formerAccounts: Collection<FormerAccountDocument>;
  /** Records USER_LOGIN, which changes no state, in a document of its own. */
  readonly outbox: Pick<ServiceOutbox, "record">;
  readonly hasher: PasswordHasher;
  readonly issueToken: TokenIssuer;
  readonly throttle: LoginThrottle;
  readonly events: EventFactory;
  /** Creates the profile in the User service right away (consistency the client observes). */
  readonly directory: Client<typeof DirectoryService>;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface Registration {
  readonly fullName: string;
  readonly email: string;
  readonly phoneNo: string;
  readonly password: string;
}

/** The same words for an unknown email and a wrong password (no account enumeration by text). */
export const loginFailedMessage = "invalid email or password";

/** True when `text` holds a character no account's email holds: a C0 control or DEL. */
function holdsControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface Accounts {
  register(input: Registration, signal: AbortSignal): Promise<AccountDocument>;
  /** `address`: the client's, as the edge names it (undefined when no edge did). */
  login(email: string, password: string, address: string | undefined, signal: AbortSignal): Promise<string>;
  ensureAdmin(email: string, password: string): Promise<void>;
  deleteAccount(userId: number, signal: AbortSignal): Promise<boolean>;
}

export function createAccounts(deps: AccountsDeps): Accounts {
  const { accounts } = deps;

  async function createAccount(
    input: Registration,
    role: Role,
    signal?: AbortSignal,
  ): Promise<AccountDocument> {
    const email = normalizeEmail(input.email);
    if ((await accounts.findOne({ email }, signal ? { signal } : {})) !== undefined) {
      throw conflict("an account with this email already exists");
    }
    const work = deps.hasher.admit();
    let passwordHash: string;
    try {
      passwordHash = await work.hash(input.password);
    } finally {
      work.end();
    }
    const createdAt = formatTimestamp(deps.clock());
    let account: AccountDocument;
    try {
      account = await insertWithNextId(
        accounts,
        deps.accountIds,
        (id) =>
          accounts.insert(
            {
              _id: id,
              email,
              fullName: input.fullName,
              phoneNo: input.phoneNo,
              passwordHash,
              role,
              createdAt,
            },
            [
              deps.events.event(
                UserRegisteredSchema,
                create(UserRegisteredSchema, {
                  userId: id,
                  email,
                  fullName: input.fullName,
                  phoneNo: input.phoneNo,
                  role,
                  registeredAt: createdAt,
                }),
                String(id),
              ),
            ],
            signal,
          ),
        signal,
      );
    } catch (error) {
      // The email was taken between our check and the insert: the unique index decided.
      if (error instanceof DuplicateKeyError) throw conflict("an account with this email already exists");
      throw error;
    }
    await createProfile(account, signal);
    return account;
  }

  /**
   * The profile is created synchronously so that register → login → GET /api/users/me works at
   * once. Should the call fail, the User service also creates it from USER_REGISTERED.
   */
  async function createProfile(account: AccountDocument, signal?: AbortSignal): Promise<void> {
    try {
      await deps.directory.createProfile(
        {
          userId: account._id,
          email: account.email,
          fullName: account.fullName,
          phoneNo: account.phoneNo,
          role: account.role,
          createdAt: account.createdAt,
        },
        { signal: keepingTrace(signal) },
      );
    } catch (error) {
      deps.logger.warn(
        { err: error, userId: account._id, signal },
        "profile not created now; USER_REGISTERED will create it",
      );
    }
  }

  /**
   * The account whose password this is, after the throttle granted the check (ADR 0115).
   * Admitted to the password work before the check is claimed, so a login refused for load
   * (503) costs no check.
   */
  async function checkPassword(
    email: string,
    password: string,
    address: string | undefined,
    now: Date,
    signal: AbortSignal,
  ): Promise<{ account: AccountDocument; claim: LoginClaim }> {
    const work = deps.hasher.admit();
    try {
      // Read first so that the throttle knows the account's own addresses; an unknown email
      // is throttled alike, and answered alike below.
      const found = await accounts.findOne({ email }, { signal });
      const account = found?.deletedAt === undefined ? found : undefined;
      const outcome = await deps.throttle.claim({ email, address, accountId: account?._id }, now, signal);
      if (!outcome.granted) {
        throw throttled(`too many failed logins; retry in ${outcome.waitSeconds} s`, outcome.waitSeconds);
      }
      if (account === undefined) {
        await work.verifyDummy(password);
        throw notFound(loginFailedMessage);
      }
      if (!(await work.verify(account.passwordHash, password))) throw unauthenticated(loginFailedMessage);
      return { account, claim: outcome.claim };
    } finally {
      work.end();
    }
  }

  return {
    register: (input, signal) => createAccount(input, "CUSTOMER", signal),

    async login(rawEmail, password, address, signal) {
      const email = normalizeEmail(rawEmail);
      // No account's email holds a control character (registration refuses them), and a store
      // may refuse one in a filter (PostgreSQL's jsonb, under FerretDB, refuses U+0000). Such a
      // login is answered at once: it can match no account, so there is nothing to guess, to
      // throttle or to hide by hashing, and a flood of them costs neither the store nor the
      // client address's throttle anything.
      if (holdsControlCharacter(email)) throw notFound(loginFailedMessage);
      const now = deps.clock();
      const { account, claim } = await checkPassword(email, password, address, now, signal);
      const token = await deps.issueToken(
        { userId: account._id, email, role: account.role, name: account.fullName },
        now,
      );
      const login = deps.events.event(
        UserLoginSchema,
        create(UserLoginSchema, { userId: account._id, email, loggedInAt: formatTimestamp(now) }),
        String(account._id),
      );
      await deps.outbox.record([login], signal);
      await deps.throttle.succeeded(claim, signal);
      return token;
    },

    async ensureAdmin(rawEmail, password) {
      const email = normalizeEmail(rawEmail);
      let existing = await accounts.findOne({ email });
      if (existing === undefined) {
        try {
          await createAccount({ email, password, fullName: "Administrator", phoneNo: "" }, "ADMIN");
          return;
        } catch (error) {
          if (!(error instanceof DomainError && error.kind === "conflict")) throw error;
          existing = await accounts.findOne({ email }); // lost a race: the account exists now
          if (existing === undefined) throw error;
        }
      }
      const work = deps.hasher.admit();
      let passwordHash: string;
      try {
        const matches = await work.verify(existing.passwordHash, password);
        passwordHash = matches ? existing.passwordHash : await work.hash(password);
      } finally {
        work.end();
      }
      const outcome = await accounts.change(existing._id, (current) => {
        if (current.role === "ADMIN" && current.passwordHash === passwordHash) return unchanged;
        if (current.deletedAt !== undefined) throw conflict("the account is being deleted");
        const promoted = current.role !== "ADMIN";
        return {
          next: { ...current, role: "ADMIN", passwordHash },
          events: promoted ? [roleChanged(current, "ADMIN")] : [],
        };
      });
      if (outcome === undefined) throw new Error(`the account of ${email} was deleted while it became admin`);
      await createProfile(outcome.doc);
    },

    async deleteAccount(userId, signal) {
      // Two steps, so that USER_DELETED is never published for an account that lives on: the
      // account is first marked deleted with the event in the same write (from then on it
      // cannot log in, and its tokens are revoked wherever the event arrives); then the document
      // goes, its pending events handed to a carrier first (RecordedCollection.delete). A crash
      // in between leaves a marked account that a repeated deletion finishes. Between the two,
      // the account is kept as a former account of its email.
      const deletedAt = formatTimestamp(deps.clock());
      const marked = await accounts.change(
        userId,
        (current) =>
          current.deletedAt !== undefined
            ? unchanged
            : {
                next: { ...current, deletedAt },
                events: [
                  deps.events.event(
                    UserDeletedSchema,
                    create(UserDeletedSchema, { userId: current._id, email: current.email, deletedAt }),
                    String(current._id),
                  ),
                ],
              },
        signal,
      );
      if (marked === undefined) return false;
      // Kept before the account goes, so that its email's history never misses it (ADR 0101).
      const { _id, email, createdAt } = marked.doc;
      try {
        await deps.formerAccounts.insert(
          { _id, email, createdAt, deletedAt: marked.doc.deletedAt ?? deletedAt },
          signal,
        );
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error; // a repeated deletion
      }
      await accounts.delete(userId, signal);
      return true;
    },
  };

  function roleChanged(account: AccountDocument, role: Role) {
    return deps.events.event(
      UserRoleChangedSchema,
      create(UserRoleChangedSchema, {
        userId: account._id,
        email: account.email,
        role,
        changedAt: formatTimestamp(deps.clock()),
      }),
      String(account._id),
    );
  }
}

/**
 * Wiring of the Auth service: `buildAuthService` turns ports into routes and background work,
 * without opening a socket (testable in memory).
 */
import { createClient } from "@connectrpc/connect";
import { createPeriodicTask } from "@commerce/runtime/background";
import { createEventFactory, createServiceOutbox } from "@commerce/runtime/events";
import { revokedAccountsSpec } from "@commerce/runtime/identity";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { migrateDocumentStore, type DocumentStore } from "@commerce/runtime/store";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { createAccountHandler } from "./account-handler.js";
import { openAccountCollections } from "./account-store.js";
import { createAccounts } from "./accounts.js";
import { createAuthHandler } from "./auth-handler.js";
import { authMigrations } from "./auth-migrations.js";
import { createEmailHolders } from "./email-holders.js";
import {
  createLoginThrottle,
  defaultLoginThrottlePolicy,
  type LoginThrottlePolicy,
} from "./login-throttle.js";
import { createPasswordHasher } from "./password-hasher.js";
import { createTokenIssuer } from "./token-issuer.js";

export interface AuthOptions {
  /** The HS512 key shared with the edge. */
  readonly jwtKey: Uint8Array;
  /** Token lifetime. */
  readonly jwtTtlSeconds: number;
  /** An ADMIN account with these credentials exists after start (ADMIN_EMAIL, ADMIN_PASSWORD). */
  readonly admin?: { readonly email: string; readonly password: string } | undefined;
  readonly throttle?: LoginThrottlePolicy;
  /**
   * The database where this process's revocation feed keeps the deleted accounts it learned
   * (`revoked_accounts`): the service's own in its own process (the default), the platform's
   * in embedded mode. Read once, by migration 1 (auth-migrations.ts).
   */
  readonly revocations?: DocumentStore;
}

export async function buildAuthService(ctx: ServiceContext, options: AuthOptions): Promise<ServiceModule> {
  const collections = await openAccountCollections(ctx.store);
  const outbox = createServiceOutbox({
    bus: ctx.bus,
    logger: ctx.logger,
    telemetry: ctx.telemetry,
    carriers: collections.eventCarriers,
  });
  const throttle = createLoginThrottle(
    {
      buckets: collections.loginThrottles,
      knownAddresses: collections.knownAddresses,
      formerAttempts: collections.formerLoginAttempts,
    },
    options.throttle ?? defaultLoginThrottlePolicy,
  );
  const hasher = createPasswordHasher();
  const accounts = createAccounts({
    accounts: outbox.track(collections.accounts),
    accountIds: collections.accountIds,
    formerAccounts: collections.formerAccounts,
    outbox,
    hasher,
    issueToken: createTokenIssuer(options.jwtKey, options.jwtTtlSeconds),
    throttle,
    events: createEventFactory("/commerce/auth"),
    directory: createClient(DirectoryService, ctx.transport),
    clock: ctx.clock,
    logger: ctx.logger,
  });
  const revokedAccounts = await (options.revocations ?? ctx.store).collection(revokedAccountsSpec);
  let migrated = false;
  const holders = createEmailHolders({
    accounts: collections.accounts,
    formerAccounts: collections.formerAccounts,
    tokenTtlMs: options.jwtTtlSeconds * 1_000,
    ready: () => migrated,
  });
  const sweeper = createPeriodicTask({
    intervalMs: 60_000,
    run: async () => {
      await throttle.sweep(ctx.clock());
    },
    logger: ctx.logger,
    failureMessage: "login throttle sweep failed",
    recoveryMessage: "login throttle sweep works again",
  });
  return {
    name: "auth",
    services: [AuthService, AccountService],
    register(router) {
      router.service(AuthService, createAuthHandler(accounts));
      router.service(AccountService, createAccountHandler(accounts, holders));
    },
    async start() {
      await migrateDocumentStore(
        ctx.store,
        authMigrations({ formerAccounts: collections.formerAccounts, revokedAccounts }),
        { logger: ctx.logger },
      );
      migrated = true;
      outbox.start();
      sweeper.start();
      const admin = options.admin;
      if (admin !== undefined) await accounts.ensureAdmin(admin.email, admin.password);
    },
    async stop() {
      await sweeper.stop();
      await outbox.stop();
      await hasher.close();
    },
  };
}

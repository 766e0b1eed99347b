/**
 * Wiring of the Auth service: `buildAuthService` turns ports into routes and background work,
 * without opening a socket (testable in memory).
 */
import { createClient } from "@connectrpc/connect";
import { createPeriodicTask } from "@commerce/runtime/background";
import { createEventFactory, createServiceOutbox } from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { createAccountHandler } from "./account-handler.js";
import { openAccountCollections } from "./account-store.js";
import { createAccounts } from "./accounts.js";
import { createAuthHandler } from "./auth-handler.js";
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
    outbox,
    hasher,
    issueToken: createTokenIssuer(options.jwtKey, options.jwtTtlSeconds),
    throttle,
    events: createEventFactory("/commerce/auth"),
    directory: createClient(DirectoryService, ctx.transport),
    clock: ctx.clock,
    logger: ctx.logger,
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
      router.service(AccountService, createAccountHandler(accounts));
    },
    async start() {
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

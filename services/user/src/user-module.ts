/**
 * Wiring of the User service: ports in, routes and background work (the registration consumer,
 * the address owner backfill) out, no socket. Its migrations run first at start (ADR 0102).
 */
import { createClient } from "@connectrpc/connect";
import { type Subscription, startConsumer } from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { backfillMigration, createBackfillTask, migrateDocumentStore } from "@commerce/runtime/store";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { addressOwners } from "./address-owners.js";
import { createDirectoryHandler } from "./directory-handler.js";
import { openProfileCollections } from "./profile-store.js";
import { createProfiles } from "./profiles.js";
import { createRegistrationConsumer, registrationTopic } from "./registration-consumer.js";
import { createUserHandler } from "./user-handler.js";

export interface UserOptions {
  /** Pause between the owner backfill's passes after its migration. Default: the safety pass's. */
  readonly ownerBackfillIntervalMs?: number;
}

export async function buildUserService(
  ctx: ServiceContext,
  options: UserOptions = {},
): Promise<ServiceModule> {
  const collections = await openProfileCollections(ctx.store);
  const accounts = createClient(AccountService, ctx.transport);
  const profiles = createProfiles({ collections, accounts });
  const owners = addressOwners(collections.addresses, accounts);
  const ownersLater = createBackfillTask(owners, ctx.logger, options.ownerBackfillIntervalMs);
  let subscription: Subscription | undefined;
  return {
    name: "user",
    services: [UserService, DirectoryService],
    register(router) {
      router.service(UserService, createUserHandler(profiles));
      router.service(DirectoryService, createDirectoryHandler(profiles));
    },
    async start() {
      await migrateDocumentStore(ctx.store, [backfillMigration(1, owners)], { logger: ctx.logger });
      ownersLater.start();
      subscription = await startConsumer(ctx.bus, {
        telemetry: ctx.telemetry,
        group: "user-service",
        topics: [registrationTopic],
        handler: createRegistrationConsumer(profiles),
        logger: ctx.logger,
      });
    },
    async stop() {
      await subscription?.close();
      await ownersLater.stop();
    },
  };
}

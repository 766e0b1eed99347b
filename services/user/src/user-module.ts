/**
 * Wiring of the User service: ports in, routes and background work out, no socket.
 */
import { createClient } from "@connectrpc/connect";
import { type Subscription, startConsumer } from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { createDirectoryHandler } from "./directory-handler.js";
import { openProfileCollections } from "./profile-store.js";
import { createProfiles } from "./profiles.js";
import { createRegistrationConsumer, registrationTopic } from "./registration-consumer.js";
import { createUserHandler } from "./user-handler.js";

export async function buildUserService(ctx: ServiceContext): Promise<ServiceModule> {
  const collections = await openProfileCollections(ctx.store);
  const profiles = createProfiles({ collections, accounts: createClient(AccountService, ctx.transport) });
  let subscription: Subscription | undefined;
  return {
    name: "user",
    services: [UserService, DirectoryService],
    register(router) {
      router.service(UserService, createUserHandler(profiles));
      router.service(DirectoryService, createDirectoryHandler(profiles));
    },
    async start() {
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
    },
  };
}

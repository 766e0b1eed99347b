/**
 * The whole platform in one process (embedded mode, `npm start`): every service, the outbox
 * relays and consumers, and the local edge. With MONGODB_URL and KAFKA_BROKERS (and later
 * CLICKHOUSE_URL) the same wiring runs on real infrastructure; without them it needs nothing
 * but a data directory.
 */
import type { DescService } from "@bufbuild/protobuf";
import { join } from "node:path";
import { buildAuthService } from "@commerce/auth/server.js";
import { buildNotificationService } from "@commerce/notification/server.js";
import { buildOrderService } from "@commerce/order/server.js";
import { buildProductService } from "@commerce/product/server.js";
import { buildUserService } from "@commerce/user/server.js";
import {
  generateJwtSecret,
  generatePassword,
  loadOrCreateSecret,
} from "@commerce/runtime/config/local-secrets.js";
import type { PlatformConfig } from "@commerce/runtime/config/platform-config.js";
import { createEmbeddedBus } from "@commerce/runtime/events/embedded-bus.js";
import { createKafkaBus } from "@commerce/runtime/events/kafka-bus.js";
import type { EventBus } from "@commerce/runtime/events/event-bus.js";
import type { Logger } from "@commerce/runtime/logging/logger.js";
import { createDualProtocolServer } from "@commerce/runtime/server/dual-protocol-server.js";
import { createServiceHost, type ServiceHost } from "@commerce/runtime/server/service-host.js";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server/service-module.js";
import type { StoreProvider } from "@commerce/runtime/store/document-store.js";
import { createEmbeddedStoreProvider } from "@commerce/runtime/store/embedded-store.js";
import { createMongoStoreProvider } from "@commerce/runtime/store/mongo-store.js";
import { systemClock, type Clock } from "@commerce/runtime/time/wall-clock.js";
import { createLazyTransport } from "@commerce/runtime/transport/lazy-transport.js";
import { createEdge } from "./edge.js";
import { createTokenVerifier } from "./token-verifier.js";

export interface RunningPlatform {
  /** Base URL of the REST edge. */
  readonly url: string;
  /** Base URL of the services' own Connect/gRPC port (internal clients, health). */
  readonly grpcUrl: string;
  /** The admin login, when embedded mode generated it (undefined when ADMIN_* was set). */
  readonly generatedAdmin: { readonly email: string; readonly password: string } | undefined;
  readonly mode: { readonly store: "embedded" | "mongodb"; readonly bus: "embedded" | "kafka" };
  close(): Promise<void>;
}

export interface PlatformOptions {
  readonly config: PlatformConfig;
  readonly logger: Logger;
  readonly clock?: Clock;
}

const generatedAdminEmail = "admin@commerce.local";

export async function startPlatform({
  config: given,
  logger,
  clock = systemClock,
}: PlatformOptions): Promise<RunningPlatform> {
  const jwtKey =
    given.jwtSecret ??
    new TextEncoder().encode(loadOrCreateSecret(given.dataDir, "jwt-secret", generateJwtSecret));
  let generatedAdmin: RunningPlatform["generatedAdmin"];
  let config = given;
  if (given.admin === undefined && given.mongodbUrl === undefined) {
    generatedAdmin = {
      email: generatedAdminEmail,
      password: loadOrCreateSecret(given.dataDir, "admin-password", generatePassword),
    };
    config = { ...given, admin: generatedAdmin };
  }

  const stores: StoreProvider =
    config.mongodbUrl !== undefined
      ? createMongoStoreProvider({ url: config.mongodbUrl })
      : createEmbeddedStoreProvider({ dataDir: join(config.dataDir, "documents") });
  const bus: EventBus =
    config.kafkaBrokers !== undefined
      ? await createKafkaBus({
          brokers: config.kafkaBrokers,
          clientId: "commerce-platform",
          partitions: config.kafkaPartitions,
          logger: logger.child({ component: "kafka" }),
        })
      : await createEmbeddedBus({ dataDir: join(config.dataDir, "events") });

  let ready = false;
  // Services reach each other through the host's in-memory transport, which exists only once
  // every service is built: they get a lazy one, resolved on the first call.
  const transport = createLazyTransport(() => host.transport);
  const contextFor = async (name: string): Promise<ServiceContext> => ({
    config,
    logger: logger.child({ service: name }),
    store: await stores.open(`commerce_${name}`),
    bus,
    transport,
    clock,
  });
  const modules: ServiceModule[] = [
    await buildAuthService(await contextFor("auth"), { jwtKey }),
    await buildUserService(await contextFor("user")),
    await buildProductService(await contextFor("product")),
    await buildOrderService(await contextFor("order")),
    await buildNotificationService(await contextFor("notification")),
  ];
  const host: ServiceHost = createServiceHost({
    routes: modules,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    isReady: () => ready,
  });

  const grpcPort = await host.listen(config.grpcPort, config.host);
  for (const module of modules) await module.start();

  const services: DescService[] = modules.flatMap((m) => m.services);
  const edge = createEdge({
    services,
    transportFor: () => transport,
    verifyToken: createTokenVerifier(jwtKey),
    maxBodyBytes: config.maxBodyBytes,
    logger: logger.child({ service: "edge" }),
    isReady: () => ready,
  });
  const edgeServer = createDualProtocolServer(edge.handler);
  const port = await edgeServer.listen(config.port, config.host);
  ready = true;

  return {
    url: `http://${config.host}:${port}`,
    grpcUrl: `http://${config.host}:${grpcPort}`,
    generatedAdmin,
    mode: {
      store: config.mongodbUrl !== undefined ? "mongodb" : "embedded",
      bus: config.kafkaBrokers !== undefined ? "kafka" : "embedded",
    },
    async close() {
      ready = false;
      await edgeServer.close();
      await host.close();
      for (const module of [...modules].reverse()) await module.stop();
      await bus.close();
      await stores.close();
    },
  };
}

/**
 * The whole platform in one process (embedded mode, `npm start`): every service module, their
 * outbox relays and consumers, and the local edge, on the same service modules that run as
 * separate processes in a cluster. With MONGODB_URL and KAFKA_BROKERS the same wiring runs on
 * real infrastructure; without them it needs nothing but a data directory.
 *
 * The edge and the services call each other through the host's in-process transport (no
 * encoding, no socket), presenting the same credentials as on the network (the edge's and the
 * peers'), so the services' access checks are the same in every mode. The services also listen
 * on GRPC_PORT for internal clients and probes.
 */
import type { DescService } from "@bufbuild/protobuf";
import { join } from "node:path";
import { buildAnalyticsProcessor } from "@commerce/analytics/processor/processor-module.js";
import { buildAnalyticsService } from "@commerce/analytics/analytics-module.js";
import { buildAuthService } from "@commerce/auth/auth-module.js";
import { createPublicSite, readPublicSiteFiles } from "@commerce/edge/public-site.js";
import { createEdge } from "@commerce/edge/edge.js";
import { createTokenVerifier } from "@commerce/edge/token-verifier.js";
import { buildNotificationService } from "@commerce/notification/notification-module.js";
import { buildOrderService } from "@commerce/order/order-module.js";
import { buildPaymentService } from "@commerce/payment/payment-module.js";
import { buildProductService } from "@commerce/product/product-module.js";
import { buildUserService } from "@commerce/user/user-module.js";
import { openAnalyticsStore } from "@commerce/runtime/analytics/analytics-store-settings.js";
import type { AnalyticsStore } from "@commerce/runtime/analytics/analytics-store.js";
import { openPlatformBus } from "@commerce/runtime/events/platform-bus.js";
import {
  createRequestTrust,
  peerCredentialHeader,
  sha256,
} from "@commerce/runtime/identity/request-trust.js";
import { createRevocationFeed } from "@commerce/runtime/identity/revoked-accounts.js";
import type { Logger } from "@commerce/runtime/logging/logger.js";
import { createDualProtocolServer } from "@commerce/runtime/server/dual-protocol-server.js";
import { createServiceHost, type ServiceHost } from "@commerce/runtime/server/service-host.js";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server/service-module.js";
import type { StoreProvider } from "@commerce/runtime/store/document-store.js";
import { createEmbeddedStoreProvider } from "@commerce/runtime/store/embedded-store.js";
import { createMongoStoreProvider } from "@commerce/runtime/store/mongo-store.js";
import { systemClock, type Clock } from "@commerce/runtime/time/wall-clock.js";
import { withClientSpans } from "@commerce/runtime/telemetry/rpc-client-spans.js";
import { serverTelemetryByService } from "@commerce/runtime/telemetry/rpc-server-spans.js";
import { withStoreSpans } from "@commerce/runtime/telemetry/store-spans.js";
import { startTelemetry, type Telemetry } from "@commerce/runtime/telemetry/telemetry.js";
import { withCredential } from "@commerce/runtime/transport/credential-transport.js";
import { createLazyTransport } from "@commerce/runtime/transport/lazy-transport.js";
import type { EmbeddedConfig } from "./embedded-config.js";

export interface RunningPlatform {
  /** Base URL of the REST edge. */
  readonly url: string;
  /** Base URL of the services' own Connect/gRPC port (internal clients, health). */
  readonly grpcUrl: string;
  readonly mode: {
    readonly store: "embedded" | "mongodb";
    readonly bus: "embedded" | "kafka";
    readonly analytics: "chdb" | "clickhouse";
  };
  close(): Promise<void>;
}

export interface PlatformOptions {
  readonly config: EmbeddedConfig;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Deadline of one upstream call made by the edge (default 30 s). */
  readonly edgeTimeoutMs?: number;
  /**
   * Tracing of the edge and every module (each under its own name); default: what the
   * configuration's `OTEL_*` settings start, shut down with the platform.
   */
  readonly telemetry?: Telemetry;
}

export async function startPlatform({
  config,
  logger,
  clock = systemClock,
  edgeTimeoutMs,
  telemetry: givenTelemetry,
}: PlatformOptions): Promise<RunningPlatform> {
  const telemetry = givenTelemetry ?? startTelemetry(config.telemetry, { singleService: false, logger });
  const { infra } = config;
  const dataDir = config.process.dataDir;
  const stores: StoreProvider =
    infra.mongodbUrl !== undefined
      ? createMongoStoreProvider({ url: infra.mongodbUrl })
      : createEmbeddedStoreProvider({ dataDir: join(dataDir, "documents") });
  const bus = await openPlatformBus({ infra, dataDir, clientId: "commerce-platform", logger });
  // One store for the stream processor and the Analytics service (chDB serves one folder per
  // process, and one engine is all they need).
  const analyticsStore: AnalyticsStore = await openAnalyticsStore(config.analyticsStore);

  let ready = false;
  // Services reach each other through the host's in-memory transport, which exists only once
  // every service is built: they get a lazy one, resolved on the first call.
  const hostTransport = createLazyTransport(() => host.transport);
  const peerTransport = withCredential(hostTransport, peerCredentialHeader, config.peerSecret);
  const contextFor = async (name: string): Promise<ServiceContext> => ({
    logger: logger.child({ service: name }),
    store: withStoreSpans(await stores.open(`commerce_${name}`), telemetry.forService(name)),
    bus,
    transport: withClientSpans(peerTransport, telemetry.forService(name), "connect_rpc"),
    clock,
    telemetry: telemetry.forService(name),
  });
  const modules: ServiceModule[] = [
    await buildAuthService(await contextFor("auth"), config.auth),
    await buildUserService(await contextFor("user")),
    await buildProductService(await contextFor("product"), config.product),
    await buildOrderService(await contextFor("order")),
    await buildNotificationService(await contextFor("notification"), { currency: config.currency }),
    await buildPaymentService(await contextFor("payment"), config.payment),
    await buildAnalyticsProcessor(await contextFor("analytics-processor"), { store: analyticsStore }),
    await buildAnalyticsService(await contextFor("analytics"), { store: analyticsStore }),
  ];
  // The one host of this process refuses deleted accounts' tokens for every service in it; what
  // it learned lives in a database of the platform's own.
  const revoked = await createRevocationFeed({
    store: await stores.open("commerce_platform"),
    bus,
    group: "platform-revocations",
    logger,
  });
  await revoked.start();
  const host: ServiceHost = createServiceHost({
    routes: modules,
    logger,
    maxBodyBytes: config.process.maxBodyBytes,
    trust: createRequestTrust({
      edgeSecretSha256: sha256(config.edgeSecret),
      peerSecretSha256: sha256(config.peerSecret),
    }),
    revoked,
    isReady: () => ready && modules.every((module) => module.isHealthy?.() ?? true),
    telemetry: serverTelemetryByService(modules, telemetry),
  });

  const { host: address } = config.process;
  const grpcPort = await host.listen(config.grpcPort, address);
  for (const module of modules) await module.start();

  const services: DescService[] = modules.flatMap((m) => m.services);
  const edge = createEdge({
    services,
    transportFor: () => hostTransport,
    verifyToken: createTokenVerifier(config.auth.jwtKey),
    edgeSecret: config.edgeSecret,
    maxBodyBytes: config.process.maxBodyBytes,
    logger: logger.child({ service: "edge" }),
    isReady: () => ready,
    telemetry: telemetry.forService("edge"),
    cors: config.cors,
    site: createPublicSite(readPublicSiteFiles()),
    ...(edgeTimeoutMs === undefined ? {} : { timeoutMs: edgeTimeoutMs }),
  });
  const edgeServer = createDualProtocolServer(edge.handler);
  const port = await edgeServer.listen(config.process.port, address);
  ready = true;

  return {
    url: `http://${address}:${port}`,
    grpcUrl: `http://${address}:${grpcPort}`,
    mode: {
      store: infra.mongodbUrl !== undefined ? "mongodb" : "embedded",
      bus: infra.kafkaBrokers !== undefined ? "kafka" : "embedded",
      analytics: config.analyticsStore.clickHouse !== undefined ? "clickhouse" : "chdb",
    },
    async close() {
      ready = false;
      await edgeServer.close();
      await host.close();
      for (const module of [...modules].reverse()) await module.stop();
      await revoked.stop();
      await analyticsStore.close();
      await bus.close();
      await stores.close();
      if (givenTelemetry === undefined) await telemetry.shutdown();
    },
  };
}

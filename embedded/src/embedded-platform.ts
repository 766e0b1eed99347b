/**
 * The whole platform in one process (embedded mode, `npm start`): every service module, their
 * outbox relays and consumers, and the local edge, on the same service modules that run as
 * separate processes in a cluster. With MONGODB_URL and KAFKA_BROKERS the same wiring runs on
 * real infrastructure; without them it needs nothing but a data directory.
 *
 * The edge and the services call each other through the host's in-process transport (no
 * encoding, no socket), presenting the same credentials as on the network: the edge its
 * credential for the service called, each module its credential for the peer it calls, each
 * derived from the deployment's two secrets (ADR 0105). Each service checks them as its own
 * process would, against its own digests, so the access checks are the same in every mode. The
 * services also listen on GRPC_PORT for internal clients and probes.
 */
import type { DescService } from "@bufbuild/protobuf";
import { join } from "node:path";
import { buildAnalyticsProcessor } from "@commerce/analytics/processor";
import { buildAnalyticsService } from "@commerce/analytics";
import { buildRecommendationService } from "@commerce/recommendation";
import { buildAuthService } from "@commerce/auth";
import { createPublicSite, readPublicSiteFiles, createEdge, createTokenVerifier } from "@commerce/edge";
import { buildNotificationService } from "@commerce/notification";
import { buildOrderService } from "@commerce/order";
import { buildPaymentService } from "@commerce/payment";
import { buildProductService } from "@commerce/product";
import { buildUserService } from "@commerce/user";
import { openAnalyticsStore, type AnalyticsStore } from "@commerce/runtime/analytics";
import { openPlatformBus } from "@commerce/runtime/events";
import {
  createRequestTrust,
  createRevocationFeed,
  deriveServiceCredentials,
  edgeCredential,
  peerCredentialHeader,
  type ServiceCredentials,
} from "@commerce/runtime/identity";
import type { ServiceProcessName } from "@commerce/runtime/config";
import type { Logger } from "@commerce/runtime/logging";
import {
  createDependencyHealth,
  createDualProtocolServer,
  createServiceHost,
  type ServiceHost,
  type ServiceContext,
  type ServiceModule,
} from "@commerce/runtime/server";
import {
  type StoreProvider,
  createEmbeddedStoreProvider,
  createMongoStoreProvider,
} from "@commerce/runtime/store";
import { systemClock, type Clock } from "@commerce/runtime/time";
import {
  withClientSpans,
  serverTelemetryByService,
  withStoreSpans,
  startTelemetry,
  type Telemetry,
} from "@commerce/runtime/telemetry";
import { withCredential, createLazyTransport, createRoutingTransport } from "@commerce/runtime/transport";
import type { EmbeddedConfig } from "./embedded-config.js";

/** The gateway's base URL; none for the sandbox, which is paid on our own pages. */
const gatewayUrlOf = (gateway: EmbeddedConfig["payment"]["gateway"]): string | undefined =>
  gateway.kind === "http" ? gateway.baseUrl : undefined;

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
  // One store for the stream processor, the Analytics service and the Recommendation service
  // (chDB serves one folder per process, and one engine is all they need).
  const analyticsStore: AnalyticsStore = await openAnalyticsStore(config.analyticsStore);
  // On MongoDB and Kafka, readiness follows them; the embedded store and bus always answer.
  const dependencies = createDependencyHealth({ stores, bus, logger });
  await dependencies.start();

  let ready = false;
  // Services reach each other through the host's in-memory transport, which exists only once
  // every service is built: they get a lazy one, resolved on the first call.
  const hostTransport = createLazyTransport(() => host.transport);
  const secrets = { edgeSecret: config.edgeSecret, peerSecret: config.peerSecret };
  const credentialsOf = new Map<string, ServiceCredentials>();
  const contextFor = async (name: ServiceProcessName): Promise<ServiceContext> => {
    const credentials = deriveServiceCredentials(name, secrets);
    credentialsOf.set(name, credentials);
    // Each peer's services, reached with this module's credential for that peer: known once
    // every module is built, as the host's transport is.
    const peers = createLazyTransport(() =>
      createRoutingTransport(
        new Map(
          [...credentials.peerCredentials].flatMap(([callee, credential]) => {
            const transport = withCredential(hostTransport, peerCredentialHeader, credential);
            const services = modules.find((module) => module.name === callee)?.services ?? [];
            return services.map((service) => [service.typeName, transport] as const);
          }),
        ),
      ),
    );
    return {
      logger: logger.child({ service: name }),
      store: withStoreSpans(await stores.open(`commerce_${name}`), telemetry.forService(name)),
      bus,
      transport: withClientSpans(peers, telemetry.forService(name), "connect_rpc"),
      clock,
      telemetry: telemetry.forService(name),
    };
  };
  // The one host of this process refuses deleted accounts' tokens for every service in it; what
  // it learned lives in a database of the platform's own, which the Auth service also reads
  // (the deletions it kept no record of itself: auth-migrations.ts).
  const revocations = await stores.open("commerce_platform");
  const modules: ServiceModule[] = [
    await buildAuthService(await contextFor("auth"), { ...config.auth, revocations }),
    await buildUserService(await contextFor("user")),
    await buildProductService(await contextFor("product"), config.product),
    await buildOrderService(await contextFor("order")),
    await buildNotificationService(await contextFor("notification"), { currency: config.currency }),
    await buildPaymentService(await contextFor("payment"), config.payment),
    await buildAnalyticsProcessor(await contextFor("analytics-processor"), { store: analyticsStore }),
    await buildAnalyticsService(await contextFor("analytics"), { store: analyticsStore }),
    await buildRecommendationService(await contextFor("recommendation"), { store: analyticsStore }),
  ];
  const revoked = await createRevocationFeed({
    store: revocations,
    bus,
    group: "platform-revocations",
    logger,
  });
  await revoked.start();
  const host: ServiceHost = createServiceHost({
    routes: modules,
    logger,
    maxBodyBytes: config.process.maxBodyBytes,
    // Each service checks what its own process would: its module's digests.
    trust: createRequestTrust(
      new Map(
        modules.flatMap((module) => {
          const anchors = credentialsOf.get(module.name);
          return anchors === undefined ? [] : module.services.map((s) => [s.typeName, anchors] as const);
        }),
      ),
    ),
    revoked,
    isReady: () => ready && dependencies.healthy() && modules.every((module) => module.isHealthy?.() ?? true),
    telemetry: serverTelemetryByService(modules, telemetry),
  });

  const { host: address } = config.process;
  const grpcPort = await host.listen(config.grpcPort, address);
  for (const module of modules) await module.start();

  const services: DescService[] = modules.flatMap((m) => m.services);
  const ownerOf = new Map(modules.flatMap((module) => module.services.map((s) => [s, module.name] as const)));
  const edge = createEdge({
    services,
    transportFor: () => hostTransport,
    verifyToken: createTokenVerifier(config.auth.jwtKey),
    edgeCredentialFor: (service) => edgeCredential(config.edgeSecret, ownerOf.get(service) ?? ""),
    maxBodyBytes: config.process.maxBodyBytes,
    logger: logger.child({ service: "edge" }),
    isReady: () => ready && dependencies.healthy(),
    telemetry: telemetry.forService("edge"),
    cors: config.cors,
    site: createPublicSite(readPublicSiteFiles({ paymentGatewayUrl: gatewayUrlOf(config.payment.gateway) })),
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
      dependencies.stop();
      await analyticsStore.close();
      await bus.close();
      await stores.close();
      if (givenTelemetry === undefined) await telemetry.shutdown();
    },
  };
}

/**
 * One service as its own process (ADR 0018): what `services/<name>/src/main.ts`
 * runs, in the multi-process topology and in a Kubernetes pod alike. It reads only the settings
 * this service owns, opens only its own database, listens on its own port, and reaches its
 * peers through gRPC clients at the addresses its configuration gives, presenting to each the
 * credential of that hop (ADR 0105). On SIGTERM it turns unready, lets requests in flight
 * finish, stops its background work and closes its connections.
 */
import type { DescService } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { EnvReader, type Env } from "../config/env-reader.js";
import type { ServiceProcessName, Setting } from "../config/setting.js";
import { readInfraSettings, readProcessSettings, type ProcessSettings } from "../config/process-settings.js";
import { createKafkaBus } from "../events/kafka-bus.js";
import { createDestinationTrust, peerCredentialHeader } from "../identity/request-trust.js";
import { createRevocationFeed } from "../identity/revoked-accounts.js";
import { readServiceCredentials } from "../identity/trust-settings.js";
import { createLogger } from "../logging/logger.js";
import type { StoreProvider } from "../store/document-store.js";
import { createEmbeddedStoreProvider } from "../store/embedded-store.js";
import { createMongoStoreProvider } from "../store/mongo-store.js";
import { withClientSpans } from "../telemetry/rpc-client-spans.js";
import { withStoreSpans } from "../telemetry/store-spans.js";
import { serverTelemetryByService } from "../telemetry/rpc-server-spans.js";
import { startTelemetry } from "../telemetry/telemetry.js";
import { readTelemetrySettings } from "../telemetry/telemetry-settings.js";
import { systemClock } from "../time/wall-clock.js";
import { createGrpcPeerTransport } from "../transport/grpc-peer-transport.js";
import { withCredential } from "../transport/credential-transport.js";
import { createRoutingTransport } from "../transport/routing-transport.js";
import { calleeAt } from "./peer-addresses.js";
import { runProcess, shutdownGraceMs } from "./run-process.js";
import { createDependencyHealth } from "./dependency-health.js";
import { createServiceHost } from "./service-host.js";
import { shutdownOnSignals } from "./shutdown-on-signals.js";
import type { ServiceContext, ServiceModule } from "./service-module.js";
import { join } from "node:path";

/** How often a service process re-reads what its replicas learned of deleted accounts. */
const replicaPollMs = 1_000;

/** A peer this service calls, and the setting that holds its address. */
export interface PeerSpec {
  /** One of `peerAddresses` (peer-addresses.ts): an `http://host:port` the peer's gRPC port answers on. */
  readonly address: Setting;
  readonly services: readonly DescService[];
}

export interface ServiceProcessSpec<S> {
  /**
   * The service's name: its database is `commerce_<name>`, its Kafka client `commerce-<name>`;
   * its process reads only the settings declared for it.
   */
  readonly name: ServiceProcessName;
  readonly peers: readonly PeerSpec[];
  /**
   * Reads the settings this service owns (beyond what every service process reads); `process`
   * holds those already read (a store under DATA_DIR, say).
   */
  readonly readSettings: (env: EnvReader, process: ProcessSettings) => S;
  readonly build: (ctx: ServiceContext, settings: S) => Promise<ServiceModule>;
}

/** Deadline of a peer call made without one (background work: sweeps, pending releases). */
const peerCallTimeoutMs = 10_000;

/** Runs the service until SIGTERM or SIGINT; exits 2 on bad configuration, 1 on failure. */
export function runServiceProcess<S>(spec: ServiceProcessSpec<S>, env: Env): void {
  runProcess(spec.name, () => start(spec, env));
}

async function start<S>(spec: ServiceProcessSpec<S>, env: Env): Promise<void> {
  const reader = new EnvReader(env, { process: spec.name });
  const processSettings = readProcessSettings(reader);
  const infra = readInfraSettings(reader);
  if (infra.kafkaBrokers === undefined) {
    reader.problem("KAFKA_BROKERS is required: services in separate processes share events through Kafka");
  }
  const credentials = readServiceCredentials(reader, spec.name);
  const peerUrls = spec.peers.map((peer) => ({
    peer,
    url: reader.url(peer.address, ["http:", "https:"]) ?? reader.required(peer.address, "(a peer)"),
    credential: credentials.peerCredentials.get(calleeAt(peer.address)) ?? "",
  }));
  const settings = spec.readSettings(reader, processSettings);
  const telemetrySettings = readTelemetrySettings(reader);
  reader.finish(undefined);

  const logger = createLogger(processSettings.logLevel, `commerce-${spec.name}`);
  const telemetry = startTelemetry(telemetrySettings, { singleService: true, logger });
  const serviceTelemetry = telemetry.forService(spec.name);
  const stores: StoreProvider =
    infra.mongodbUrl !== undefined
      ? createMongoStoreProvider({ url: infra.mongodbUrl })
      : createEmbeddedStoreProvider({ dataDir: join(processSettings.dataDir, "documents") });
  const bus = await createKafkaBus({
    brokers: infra.kafkaBrokers ?? [],
    clientId: `commerce-${spec.name}`,
    partitions: infra.kafkaPartitions,
    // Only the topics it publishes to or consumes, each created when first used.
    topics: [],
    logger: logger.child({ component: "kafka" }),
  });

  const byService = new Map<string, Transport>();
  for (const { peer, url, credential } of peerUrls) {
    const transport = withCredential(
      createGrpcPeerTransport({ baseUrl: url, defaultTimeoutMs: peerCallTimeoutMs }),
      peerCredentialHeader,
      credential,
    );
    for (const service of peer.services) byService.set(service.typeName, transport);
  }
  const store = await stores.open(`commerce_${spec.name}`);
  // Ready only while its store and bus answer (ADR 0112).
  const dependencies = createDependencyHealth({ stores, bus, logger });
  await dependencies.start();
  const context: ServiceContext = {
    logger,
    store: withStoreSpans(store, serviceTelemetry),
    bus,
    transport: withClientSpans(createRoutingTransport(byService), serviceTelemetry, "grpc"),
    clock: systemClock,
    telemetry: serviceTelemetry,
  };
  const module = await spec.build(context, settings);
  const revoked = await createRevocationFeed({
    store,
    bus,
    group: `${spec.name}-revocations`,
    logger,
    pollIntervalMs: replicaPollMs,
    telemetry: serviceTelemetry,
  });
  await revoked.start(); // before serving: a restarted process still refuses deleted accounts
  let ready = false;
  const host = createServiceHost({
    routes: [module],
    logger,
    maxBodyBytes: processSettings.maxBodyBytes,
    trust: createDestinationTrust(module.services, credentials),
    revoked,
    isReady: () => ready && dependencies.healthy() && (module.isHealthy?.() ?? true),
    telemetry: serverTelemetryByService([{ name: spec.name, services: module.services }], telemetry),
  });
  const port = await host.listen(processSettings.port, processSettings.host);
  await module.start();
  ready = true;
  logger.info({ port }, `${spec.name} service ready`);
  process.stdout.write(`${spec.name} service listening on http://${processSettings.host}:${port}\n`);

  shutdownOnSignals(logger, async () => {
    ready = false;
    await host.close(shutdownGraceMs);
    await module.stop();
    await revoked.stop();
    dependencies.stop();
    await bus.close();
    await stores.close();
    await telemetry.shutdown();
  });
}

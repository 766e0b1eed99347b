/**
 * Builds a service's module on real embedded adapters in a temporary directory and hosts it
 * in memory, with the same interceptors as production, for RPC-level tests.
 */
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Transport } from "@connectrpc/connect";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedBus } from "../events/embedded-bus.js";
import type { EventBus, EventRecord } from "../events/event-bus.js";
import { userEmailHeader, userIdHeader, userRoleHeader, type Caller } from "../identity/caller.js";
import {
  createDestinationTrust,
  edgeCredentialHeader,
  peerCredentialHeader,
  sha256,
} from "../identity/request-trust.js";
import { createRevocationFeed, type RevocationFeed } from "../identity/revoked-accounts.js";
import { createLogger } from "../logging/logger.js";
import { createServiceHost, type ServiceHost, type ServiceRoutes } from "../server/service-host.js";
import type { ServiceContext, ServiceModule } from "../server/service-module.js";
import { createEmbeddedStoreProvider } from "../store/embedded-store.js";
import { noTelemetry } from "../telemetry/telemetry.js";
import { withCredential } from "../transport/credential-transport.js";
import { createLazyTransport } from "../transport/lazy-transport.js";

type HeaderInit = ConstructorParameters<typeof Headers>[0];

/** The name internal calls of a harness carry (`callingPeerKey`). */
export const harnessPeer = "harness";

export interface ServiceHarness {
  readonly host: ServiceHost;
  readonly bus: EventBus;
  readonly context: ServiceContext;
  /**
   * Every record published on `topic` from now on, in arrival order (a live array), seen by a
   * consumer group of the test's own.
   */
  recordEvents(topic: string): Promise<EventRecord[]>;
  /**
   * A client that calls as the edge would: with the edge credential and, for `caller`, the
   * identity headers; without `caller`, anonymously.
   */
  client<S extends DescService>(service: S, caller?: Caller): Client<S>;
  /** A client that calls as a peer service (internal methods). */
  peerClient<S extends DescService>(service: S): Client<S>;
  close(): Promise<void>;
}

/**
 * `build` receives the context; `peers` are other services' routes (for example a stand-in for
 * an internal service the module calls), hosted beside it.
 */
export async function startServiceHarness(
  build: (context: ServiceContext) => Promise<ServiceModule>,
  peers: readonly ServiceRoutes[] = [],
): Promise<ServiceHarness> {
  const dir = await mkdtemp(join(tmpdir(), "service-harness-"));
  const stores = createEmbeddedStoreProvider({ dataDir: join(dir, "documents") });
  const bus = await createEmbeddedBus({ dataDir: join(dir, "events") });
  const logger = createLogger("silent", "test");
  const edgeCredential = `edge-${randomUUID()}`;
  const peerCredential = `peer-${randomUUID()}`;
  const transport: Transport = withCredential(
    createLazyTransport(() => host.transport),
    peerCredentialHeader,
    peerCredential,
  );
  const context: ServiceContext = {
    logger,
    store: await stores.open("service"),
    bus,
    transport,
    clock: () => new Date(),
    telemetry: noTelemetry.forService("service"),
  };
  const module = await build(context);
  const revoked: RevocationFeed = await createRevocationFeed({
    store: await stores.open("revocations"),
    bus,
    group: "harness-revocations",
    logger,
    pollIntervalMs: 100,
  });
  await revoked.start();
  const host: ServiceHost = createServiceHost({
    routes: [module, ...peers],
    logger,
    maxBodyBytes: 1 << 20,
    // One destination for the module and its peers alike, called by the edge and by a peer
    // named after the harness.
    trust: createDestinationTrust([...module.services, ...peers.flatMap((peer) => peer.services)], {
      edgeCredentialSha256: sha256(edgeCredential),
      callers: new Map([[harnessPeer, sha256(peerCredential)]]),
    }),
    revoked,
    isReady: () => true,
  });
  await module.start();
  return {
    host,
    bus,
    context,
    async recordEvents(topic) {
      const records: EventRecord[] = [];
      await bus.subscribe({
        group: `spy-${randomUUID()}`,
        topics: [topic],
        handler: (record) => {
          records.push(record);
          return Promise.resolve();
        },
      });
      return records;
    },
    client(service, caller) {
      const identity: Record<string, string> = { [edgeCredentialHeader]: edgeCredential };
      if (caller !== undefined) {
        identity[userEmailHeader] = caller.email;
        identity[userRoleHeader] = caller.role;
        identity[userIdHeader] = String(caller.userId);
      }
      const withIdentity = (header: unknown): Headers => {
        const merged = new Headers(header as HeaderInit);
        for (const [name, value] of Object.entries(identity)) merged.set(name, value);
        return merged;
      };
      return createClient(service, {
        unary: (method, signal, timeout, header: unknown, input, values) =>
          host.transport.unary(method, signal, timeout, withIdentity(header), input, values),
        stream: (method, signal, timeout, header: unknown, input, values) =>
          host.transport.stream(method, signal, timeout, withIdentity(header), input, values),
      });
    },
    peerClient(service) {
      return createClient(service, transport);
    },
    async close() {
      await module.stop();
      await revoked.stop();
      await bus.close();
      await stores.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The Connect code a call failed with; throws when the call succeeded. */
export async function codeOf(call: Promise<unknown>): Promise<Code> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error).code;
  }
  throw new Error("expected the call to fail");
}

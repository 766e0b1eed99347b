/**
 * The multi-process topology on one machine (ADR 0019): one process per service
 * replica, running the compiled build exactly as a container would, on the store and bus the
 * caller selects, behind a real Envoy generated from the contract, which also sends the public
 * site's paths to the `web` process. Used by `npm run cluster:up` (through a detached daemon)
 * and by `npm test` (in process).
 *
 * Each process gets only its own settings (service-catalog.ts): peers' addresses, its own
 * credential for each of them, the digests of what it accepts from the edge and from its
 * callers (derived from the two deployment secrets here, ADR 0105), and the secrets it owns;
 * Envoy, its credential for each service; the `web` process, only where to listen, how much to
 * log and the payment gateway's URL. Replicas of a service
 * share its database; a service's peer address points at one replica of the peer, chosen round
 * robin, the way a Kubernetes Service spreads connections.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { corsSettingsOf, type CorsSettingName } from "@commerce/edge";
import { serviceTrustEnvironment } from "@commerce/runtime/identity";
import { buildIfStale, distDir } from "../build.js";
import { deployableServices, type OwnedSetting, type ServiceName } from "./service-catalog.js";
import { hostPortOf, startEnvoyProcess, type EnvoyProcess } from "../../envoy/src/envoy-process.js";
import { edgeSamplePercent, otlpExportOf, type OtlpExport } from "../../envoy/src/tracing.js";
import { exitWithStarter } from "../infra/processes.js";
import { freePorts } from "./free-ports.js";
import { startRestartingProcess, type Incident, type RestartingProcess } from "./restarting-process.js";

export interface ClusterOptions {
  /** Logs, data directories and rendered configuration go here. */
  readonly stateDir: string;
  /** MongoDB (FerretDB); unset gives each service an embedded store (one replica each, then). */
  readonly mongodbUrl?: string | undefined;
  /**
   * A MongoDB URL for the processes of one service instead of `mongodbUrl`: the same server
   * reached another way, such as through a test's TCP proxy that cuts that service's store alone.
   */
  readonly storeUrls?: Readonly<Partial<Record<ServiceName, string>>> | undefined;
  readonly kafkaBrokers: string;
  readonly jwtSecret: string;
  readonly edgeSecret: string;
  readonly peerSecret: string;
  /**
   * Values of the settings services own (ADMIN_EMAIL, JWT_TTL, PAYMENT_CURRENCY, ...);
   * CLICKHOUSE_URL is required when analytics is deployed.
   */
  readonly settings?: Readonly<Partial<Record<OwnedSetting, string>>>;
  /** The edge's own settings (`CORS_*`), which Envoy's configuration follows. */
  readonly edgeSettings?: Readonly<Partial<Record<CorsSettingName, string>>>;
  readonly replicas?: Readonly<Partial<Record<ServiceName, number>>>;
  /** Only these services (each with its peers); every deployable one when unset. */
  readonly services?: readonly ServiceName[];
  /**
   * Fixed ports (the shared topology of `cluster:up`): Envoy's, then one per replica from
   * `servicesFrom` on; free ones are picked otherwise.
   */
  readonly ports?: { readonly edge: number; readonly servicesFrom: number } | undefined;
  /**
   * The `OTEL_*` variables every service gets (the runtime's telemetry reads them; none: no
   * telemetry). With `OTEL_EXPORTER_OTLP_ENDPOINT` among them, Envoy traces into it as well,
   * unless they trace nothing (`edgeOtlpExport`).
   */
  readonly telemetry?: Readonly<Record<string, string>> | undefined;
  /**
   * The `OTEL_*` variables Envoy's tracer follows when they differ from the services' (the
   * tracing bench traces Envoy alone); `telemetry` by default.
   */
  readonly edgeTelemetry?: Readonly<Record<string, string>> | undefined;
  /** Envoy's worker threads (1 by default). */
  readonly envoyConcurrency?: number;
  readonly logLevel?: string;
  /** Called for every unexpected exit of a process (it is restarted). */
  readonly onIncident?: (incident: Incident) => void;
}

export interface ServiceInstance {
  readonly service: ServiceName;
  /** `product-2` */
  readonly name: string;
  readonly url: string;
}

export interface RunningServices {
  readonly instances: readonly ServiceInstance[];
  /** Every unexpected exit so far. */
  readonly incidents: readonly Incident[];
  /** The base URL of each replica of `service`. */
  urlsOf(service: ServiceName): string[];
  stop(): Promise<void>;
}

export interface RunningCluster extends RunningServices {
  /** Envoy: the REST edge. */
  readonly baseUrl: string;
  /** What went wrong since the start: processes that exited, Envoy gone. Empty when healthy. */
  problems(): string[];
}

/**
 * Where Envoy's tracer exports, from the services' own telemetry settings; none when they have
 * none, or trace nothing (`OTEL_TRACES_EXPORTER=none`, `OTEL_SDK_DISABLED=true`).
 */
export function edgeOtlpExport(telemetry: Readonly<Record<string, string>>): OtlpExport | undefined {
  const endpoint = telemetry["OTEL_EXPORTER_OTLP_ENDPOINT"];
  if (
    endpoint === undefined ||
    endpoint === "" ||
    telemetry["OTEL_SDK_DISABLED"] === "true" ||
    telemetry["OTEL_TRACES_EXPORTER"] === "none"
  )
    return undefined;
  return otlpExportOf(endpoint, edgeSamplePercent(telemetry));
}

/** The services, then Envoy in front of them. */
export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const cors = corsSettingsOf(options.edgeSettings ?? {});
  const services = await startServices(options);
  let envoy: EnvoyProcess;
  try {
    envoy = await startEnvoyProcess({
      // The routed services, and the public site (envoy-options.ts, `siteDeployment`).
      upstreams: new Map(
        deployableServices
          .filter((s) => (s.routed || s.kind === "site") && services.urlsOf(s.name).length > 0)
          .map((s) => [s.name, services.urlsOf(s.name).map((url) => hostPortOf(url))]),
      ),
      secrets: { jwtSecret: options.jwtSecret, edgeSecret: options.edgeSecret },
      port: options.ports?.edge ?? 0,
      concurrency: options.envoyConcurrency ?? 1,
      dir: join(options.stateDir, "envoy"),
      otlp: edgeOtlpExport(options.edgeTelemetry ?? options.telemetry ?? {}),
      cors,
    });
  } catch (error) {
    await services.stop();
    throw error;
  }
  return {
    ...services,
    baseUrl: envoy.baseUrl,
    problems() {
      const problems = services.incidents.map((i) => `${i.process} ${i.exit} at ${i.at}`);
      const envoyExit = envoy.unexpectedExit();
      if (envoyExit !== undefined) problems.push(envoyExit);
      return problems;
    },
    async stop() {
      await envoy.stop();
      await services.stop();
    },
  };
}

const readyTimeoutMs = 90_000;

/** One process per replica of every deployable service, each ready before this resolves. */
export async function startServices(options: ClusterOptions): Promise<RunningServices> {
  await buildIfStale();
  await mkdir(join(options.stateDir, "logs"), { recursive: true });
  const replicasOf = (service: ServiceName): number => options.replicas?.[service] ?? 1;
  if (options.mongodbUrl === undefined && Object.values(options.replicas ?? {}).some((n) => n > 1)) {
    throw new Error("replicas of a service share its database: set MONGODB_URL");
  }

  const deployed = deployableServices.filter((s) => options.services?.includes(s.name) ?? true);
  // Without a server, the processor and the Analytics service would each keep an analytics
  // store of their own (chDB under their DATA_DIR), and the service would never see a row.
  const needsClickHouse = deployed.filter((s) => s.owns.includes("CLICKHOUSE_URL"));
  if (needsClickHouse.length > 0 && (options.settings?.CLICKHOUSE_URL ?? "") === "") {
    throw new Error(
      `${needsClickHouse.map((s) => s.name).join(" and ")} share one analytics store: set CLICKHOUSE_URL`,
    );
  }
  for (const service of deployed) {
    for (const peer of Object.values(service.peers)) {
      if (peer !== undefined && !deployed.some((s) => s.name === peer)) {
        throw new Error(`${service.name} calls ${peer}: deploy it too`);
      }
    }
  }
  const total = deployed.reduce((n, s) => n + replicasOf(s.name), 0);
  const ports =
    options.ports === undefined
      ? await freePorts(total)
      : Array.from({ length: total }, (_, i) => (options.ports?.servicesFrom ?? 0) + i);
  const instances: ServiceInstance[] = [];
  for (const service of deployed) {
    for (let replica = 1; replica <= replicasOf(service.name); replica++) {
      const port = ports[instances.length] ?? 0;
      instances.push({
        service: service.name,
        name: `${service.name}-${replica}`,
        url: `http://127.0.0.1:${port}`,
      });
    }
  }
  const urlsOf = (service: ServiceName): string[] =>
    instances.filter((i) => i.service === service).map((i) => i.url);

  const incidents: Incident[] = [];
  const processes: RestartingProcess[] = [];
  const secrets = { edgeSecret: options.edgeSecret, peerSecret: options.peerSecret };
  for (const [index, instance] of instances.entries()) {
    const service = deployableServices.find((s) => s.name === instance.service);
    if (service === undefined) continue;
    const env: Record<string, string> = {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: new URL(instance.url).port,
      LOG_LEVEL: options.logLevel ?? "info",
    };
    // The public site is given where to listen and nothing else: no store, bus or secret.
    if (service.kind === "service") {
      Object.assign(env, {
        DATA_DIR: join(options.stateDir, "data", instance.name),
        KAFKA_BROKERS: options.kafkaBrokers,
        ...serviceTrustEnvironment(service.name, secrets),
      });
      const storeUrl = options.storeUrls?.[service.name] ?? options.mongodbUrl;
      if (storeUrl !== undefined) env["MONGODB_URL"] = storeUrl;
      Object.assign(env, options.telemetry);
    }
    for (const [variable, peer] of Object.entries(service.peers)) {
      if (peer === undefined) continue;
      const peerUrls = urlsOf(peer);
      env[variable] = peerUrls[index % peerUrls.length] ?? "";
    }
    for (const setting of service.owns) {
      const value = setting === "JWT_SECRET" ? options.jwtSecret : options.settings?.[setting];
      if (value !== undefined) env[setting] = value;
    }
    processes.push(
      startRestartingProcess(
        {
          name: instance.name,
          command: process.execPath,
          args: [...exitWithStarter, "--enable-source-maps", join(distDir, service.entry)],
          env,
          logFile: join(options.stateDir, "logs", `${instance.name}.log`),
        },
        (incident) => {
          incidents.push(incident);
          options.onIncident?.(incident);
        },
      ),
    );
  }

  const cluster: RunningServices = {
    instances,
    incidents,
    urlsOf,
    async stop() {
      await Promise.all(processes.map((p) => p.stop()));
    },
  };
  try {
    await Promise.all(instances.map((instance) => waitReady(instance, incidents)));
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** Polls the instance's `/readyz` until it answers 200; fails early when it keeps crashing. */
async function waitReady(instance: ServiceInstance, incidents: readonly Incident[]): Promise<void> {
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    const crashes = incidents.filter((i) => i.process === instance.name);
    if (crashes.length >= 3) {
      throw new Error(
        `${instance.name} keeps exiting: ${crashes.at(-1)?.exit ?? ""}\n${crashes.at(-1)?.tail ?? ""}`,
      );
    }
    try {
      const response = await fetch(`${instance.url}/readyz`, { signal: AbortSignal.timeout(1_000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${instance.name} was not ready within ${readyTimeoutMs} ms`);
    await delay(200);
  }
}

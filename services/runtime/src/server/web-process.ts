/**
 * A process that serves plain HTTP pages and nothing else: the `web` deployable, which serves
 * the public site (the web app, the API's description and its reference page) behind Envoy in the
 * multi-process topology and in Kubernetes (ADR 0027).
 * It reads `PORT`, `HOST`, `LOG_LEVEL` and what its pages declare (the payment gateway's URL, for
 * the web app's security policy): no store, no event bus, no secret. Like every
 * service it answers gRPC health (Envoy's health checks and the chart's probes ask it),
 * `/healthz` and `/readyz`, on one port for both protocols; any other path is the JSON 404. On
 * SIGTERM it turns unready and lets requests in flight finish.
 */
import { EnvReader, type Env } from "../config/env-reader.js";
import { readServerSettings } from "../config/process-settings.js";
import { trustNobody } from "../identity/request-trust.js";
import { noRevokedAccounts } from "../identity/revoked-accounts.js";
import { createLogger } from "../logging/logger.js";
import { runProcess, shutdownGraceMs } from "./run-process.js";
import { createServiceHost, type HttpPages } from "./service-host.js";
import { shutdownOnSignals } from "./shutdown-on-signals.js";

export interface WebProcessSpec<Settings> {
  /** The process's name, in its log and on its stderr. */
  readonly name: string;
  /** The pages' own settings, read with the process's. */
  readonly readSettings: (env: EnvReader) => Settings;
  /** The pages, built once the configuration is read (reading their files, say). */
  readonly readPages: (settings: Settings) => HttpPages;
}

/** Runs the pages until SIGTERM or SIGINT; exits 2 on bad configuration, 1 on failure. */
export function runWebProcess<Settings>(spec: WebProcessSpec<Settings>, env: Env): void {
  runProcess(spec.name, () => start(spec, env));
}

async function start<Settings>(spec: WebProcessSpec<Settings>, env: Env): Promise<void> {
  const reader = new EnvReader(env, { process: "web" });
  const [settings, pageSettings] = reader.finish([readServerSettings(reader), spec.readSettings(reader)]);
  const pages = spec.readPages(pageSettings);
  const logger = createLogger(settings.logLevel, `commerce-${spec.name}`);
  let ready = false;
  const host = createServiceHost({
    routes: [],
    logger,
    maxBodyBytes: settings.maxBodyBytes,
    // It holds no credential and serves no method that would need one.
    trust: trustNobody,
    revoked: noRevokedAccounts,
    isReady: () => ready,
    pages,
  });
  const port = await host.listen(settings.port, settings.host);
  ready = true;
  logger.info({ port }, `${spec.name} ready`);
  process.stdout.write(`${spec.name} listening on http://${settings.host}:${port}\n`);

  shutdownOnSignals(logger, async () => {
    ready = false;
    await host.close(shutdownGraceMs);
  });
}

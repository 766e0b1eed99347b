/**
 * `npm test`: everything, starting what it needs.
 *   0. the build `npm start` runs (.build/dist, incremental: ADR 0093), made once here; every
 *      platform the steps below start runs it, as `npm start` does;
 *   1. static checks: TypeScript, ESLint, Prettier, buf lint, buf breaking, and the repository's
 *      own hygiene (no outside citations, npm scripts run files that exist, no unused
 *      production dependency); the documentation's generated table of settings, and each
 *      process reading only the settings declared for it;
 *   2. the installers: each requested several times at once on an empty cache folder builds
 *      once and gives every caller a working tool (scripts/cache); then the test browser
 *      (Debian's Chromium, unpacked into the cache on first use) driven on loopback: a form
 *      filled, a screenshot, the accessibility check;
 *   3. unit, RPC and port contract suites (with a private FerretDB, a private Kafka and a
 *      private ClickHouse 18.16 for the MongoDB, Kafka and ClickHouse adapters);
 *   4. the container images: the Dockerfile replayed without Docker (the build, `npm ci
 *      --omit=dev`, each target's configuration), and every service started from its image as
 *      the chart runs it, on a private FerretDB, Kafka and ClickHouse;
 *   5. the OTLP backend (Jaeger v2, built from Go modules and cached on first use) taking a
 *      span and a metric and giving them back; each Kafka line (4.x, and 3.9 for the order-cost
 *      bench's "before") starting from its own jars and taking a record; the Envoy configuration generator and the Envoy
 *      edge's own concerns (a real Envoy, fetched and cached on first use), its tracer into a
 *      real Jaeger, and the topology's process supervision; then a private
 *      Kubernetes control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok fake
 *      nodes; built from Go modules and cached on first use) that the platform's chart (helm/)
 *      is installed on, upgraded, rolled back and uninstalled, after its renders of every
 *      profile are linted, validated strictly and checked for hardening and network flows,
 *      and skaffold.yaml is validated and rendered;
 *   6. crash recovery: the platform killed under order load gives leaked stock back in time, and
 *      killed in the middle of a payment create converges on one gateway order and one payment;
 *      the analytics stream processor (its own process, on a private Kafka and ClickHouse)
 *      killed after an insert and before its commit, or replayed from the earliest offset,
 *      leaves every figure exact;
 *   7. the README's Try it, pasted into a fresh shell against the platform started as `npm start`
 *      starts on a fresh clone (no settings: the admin and the secrets generated); then the
 *      black-box acceptance suite over HTTP against the platform in embedded mode (chDB; with
 *      the web app's journeys in Chromium, a customer's and an admin's, then the service-port
 *      suite against its services' port, then Schemathesis fuzzing the API from the description
 *      it serves), on FerretDB with the embedded bus, and on FerretDB with Kafka (both with
 *      ClickHouse); then the web app paying at a gateway's hosted checkout (a fake gateway on
 *      loopback, the platform embedded with PAYMENT_GATEWAY_URL set: that suite starts both);
 *   8. the multi-process topology on FerretDB + Kafka and ClickHouse, two replicas of Product
 *      and Order, behind a real Envoy, every process and Envoy tracing into a private Jaeger:
 *      the end-to-end trace of an order placed and paid (read back from Jaeger's API, with the
 *      metrics), the acceptance suite and the web app's journeys through Envoy, the
 *      service-port suite against the services' own ports, then Schemathesis fuzzing the API
 *      through Envoy from the description Envoy serves (the `web` process's); no process may
 *      exit meanwhile;
 *   9. a store outage on a topology of its own (the same FerretDB, Kafka and ClickHouse, whose
 *      history the steps before left consistent): the Order process's store cut for five
 *      minutes through a TCP proxy while a customer pays and an account is deleted, and then
 *      nothing lost (test/outage);
 *  10. a wedged store on a topology of its own, on a FerretDB of its own (the run's Kafka and
 *      ClickHouse): every service's store paused for 30 s (SIGSTOP) and then restarted, every
 *      service not ready meanwhile and answering fast 503s, then ready again by itself with
 *      every acknowledged order (test/outage/wedged-store.spec.ts).
 * Prints how long each step took, and ends with one line of totals.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCluster, type RunningCluster } from "./cluster/cluster.js";
import { deployableServices, serviceUrlVariable, type ServiceName } from "./cluster/service-catalog.js";
import { startClickHouse } from "./infra/clickhouse.js";
import { startFerretDb } from "./infra/ferretdb.js";
import { startJaeger, type JaegerInstance } from "./infra/jaeger.js";
import { startKafka } from "./infra/kafka.js";
import { startPlatformProcess, type PlatformProcess } from "./testing/platform-process.js";
import { runStep, type StepResult } from "./testing/run-step.js";

const bin = (name: string): string => join(import.meta.dirname, "..", "node_modules", ".bin", name);
const results: { title: string; result: StepResult }[] = [];
const started = Date.now();

async function step(
  title: string,
  command: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<void> {
  results.push({ title, result: await runStep(title, command, args, env) });
}

/** A step that could not even start (its platform did not come up) counts as one failure. */
function failedToStart(title: string, error: unknown): void {
  process.stdout.write(`\n=== ${title}\n${error instanceof Error ? error.message : String(error)}\n`);
  results.push({ title, result: { ok: false, passed: 0, failed: 1, seconds: 0 } });
}

/** `<NAME>_SERVICE_URL` of every deployable service, as the service-port suite reads them. */
function serviceUrls(urlOf: (service: ServiceName) => string): Record<string, string> {
  return Object.fromEntries(
    deployableServices.filter((s) => s.routed).map(({ name }) => [serviceUrlVariable(name), urlOf(name)]),
  );
}

const secret = (bytes: number): string => randomBytes(bytes).toString("base64url");
const acceptance = "test/acceptance/**/*.spec.ts";
// The web app driven in Chromium as a customer and an admin would, after the acceptance suite
// in the same run: once behind the local edge (embedded mode) and once behind Envoy, the two
// edges that serve it; the other modes change nothing the browser sees.
const webJourneys = "test/web/**/*.spec.ts";
const scratch = await mkdtemp(join(tmpdir(), "commerce-test-"));
// Two FerretDB servers: the acceptance suite compares the analytics figures with the documents,
// so each deployment's documents, events and analytics must come from the same history. The
// FerretDB mode (embedded bus) gets one of its own; the FerretDB + Kafka mode and the cluster
// share the other, with the same Kafka and the same ClickHouse database (the analytics
// processor's consumer group, in Kafka, remembers how far that database got).
const [ferret, ferretOfEmbeddedBus, kafka, clickHouse] = await Promise.all([
  startFerretDb({ dataDir: join(scratch, "ferretdb") }),
  startFerretDb({ dataDir: join(scratch, "ferretdb-embedded-bus") }),
  startKafka({ dataDir: join(scratch, "kafka") }),
  startClickHouse({ dataDir: join(scratch, "clickhouse") }),
]);
const analyticsOnKafka = `${clickHouse.url}/acceptance_kafka`;
process.stdout.write(`infrastructure up in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
try {
  await step("build: what npm start runs, compiled to .build/dist when stale", process.execPath, [
    "--import",
    "tsx",
    "scripts/build.ts",
    "--if-stale",
  ]);
  await step("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
  await step("typecheck: the typed client as a browser app compiles it", bin("tsc"), [
    "--noEmit",
    "-p",
    "client/tsconfig.browser.json",
  ]);
  await step("typecheck: the web app", bin("tsc"), ["--noEmit", "-p", "web/tsconfig.json"]);
  await step("lint", bin("eslint"), ["--max-warnings=0", "."]);
  await step("format", bin("prettier"), ["--check", "--log-level=warn", "."]);
  await step("buf lint", bin("buf"), ["lint"]);
  await step("buf breaking", process.execPath, ["--import", "tsx", "scripts/buf-breaking.ts"]);
  await step("repository hygiene", bin("mocha"), ["scripts/testing/repository-hygiene.spec.ts"]);
  await step(
    "documentation: the settings table is the declarations', each process reads only its declared settings",
    bin("mocha"),
    ["scripts/docs/**/*.spec.ts"],
  );
  await step(
    "installers: each requested at once on an empty cache, built once, every caller served",
    bin("mocha"),
    ["scripts/cache/**/*.spec.ts"],
  );
  await step(
    "browser: Debian's Chromium from the cache, driven on loopback (form, screenshot, accessibility check)",
    bin("mocha"),
    ["scripts/testing/browser.spec.ts"],
  );
  await step(
    "unit, RPC and contract suites",
    bin("mocha"),
    [
      "services/*/src/**/*.spec.ts",
      "embedded/src/**/*.spec.ts",
      "client/src/**/*.spec.ts",
      "scripts/codegen/**/*.spec.ts",
      "scripts/web-app/**/*.spec.ts",
    ],
    { MONGODB_URL: ferret.url, CLICKHOUSE_URL: clickHouse.url },
  );
  await step(
    "container images: the Dockerfile replayed, every service started from its image",
    bin("mocha"),
    ["scripts/images/**/*.spec.ts"],
  );
  await step(
    "OTLP backend: Jaeger v2 built, a span and a metric read back, gone with its starter; each Kafka line starts and takes a record",
    bin("mocha"),
    ["scripts/infra/**/*.spec.ts"],
  );
  await step("Envoy configuration, edge and tracer, topology supervision", bin("mocha"), [
    "envoy/**/*.spec.ts",
    "scripts/cluster/**/*.spec.ts",
    "test/envoy/**/*.spec.ts",
  ]);

  // With the project's cache empty, the Kubernetes tools are built here (links, when Go's own
  // caches are warm; about 15 minutes on two cores when they are not either).
  await step(
    "Kubernetes: toolchain, the chart per profile (lint, kubeconform, hardening, flows), install/upgrade/rollback/uninstall on kwok nodes, skaffold",
    bin("mocha"),
    ["scripts/k8s/**/*.spec.ts", "helm/tests/**/*.spec.ts"],
  );

  await step(
    "crash recovery: leaked stock returns, a payment converges (embedded), analytics stay exact (kill, replay)",
    bin("mocha"),
    ["test/crash/**/*.spec.ts"],
  );

  const deployment = {
    JWT_SECRET: secret(64),
    EDGE_SECRET: secret(32),
    PEER_SECRET: secret(32),
    ADMIN_EMAIL: "admin@acceptance.test",
    ADMIN_PASSWORD: secret(12),
    PAYMENT_KEY_SECRET: secret(32),
    PAYMENT_WEBHOOK_SECRET: secret(32),
    // The browser app's origin the acceptance suite calls from (test/acceptance/cors.spec.ts).
    CORS_ALLOWED_ORIGINS: "https://shop.example.test",
  };
  // The README's Try it against `npm start` on a fresh clone: nothing configured, so the admin
  // and the secrets are generated under DATA_DIR (blanked here in case this shell sets them).
  const tryIt = "the README's Try it (embedded, as npm start on a fresh clone)";
  const tryItData = join(scratch, "data-try-it");
  let fresh: PlatformProcess | undefined;
  try {
    fresh = await startPlatformProcess({
      DATA_DIR: tryItData,
      LOG_LEVEL: "warn",
      ADMIN_EMAIL: "",
      ADMIN_PASSWORD: "",
      MONGODB_URL: "",
      KAFKA_BROKERS: "",
      CLICKHOUSE_URL: "",
    });
  } catch (error) {
    failedToStart(tryIt, error);
  }
  if (fresh !== undefined) {
    try {
      await step(tryIt, bin("mocha"), ["test/readme/**/*.spec.ts"], {
        BASE_URL: fresh.baseUrl,
        DATA_DIR: tryItData,
      });
    } finally {
      await fresh.stop();
    }
  }

  const modes: [string, NodeJS.ProcessEnv][] = [
    ["embedded", {}],
    [
      "FerretDB, ClickHouse",
      { MONGODB_URL: ferretOfEmbeddedBus.url, CLICKHOUSE_URL: `${clickHouse.url}/acceptance_ferretdb` },
    ],
    [
      "FerretDB + Kafka, ClickHouse",
      { MONGODB_URL: ferret.url, KAFKA_BROKERS: kafka.brokers, CLICKHOUSE_URL: analyticsOnKafka },
    ],
  ];
  for (const [mode, env] of modes) {
    const withJourneys = mode === "embedded";
    const title = `acceptance${withJourneys ? " and web journeys" : ""} (${mode})`;
    let platform: PlatformProcess;
    try {
      platform = await startPlatformProcess({
        ...deployment,
        ...env,
        LOG_LEVEL: "warn",
        DATA_DIR: join(scratch, `data-${mode.replace(/\W+/g, "-")}`),
      });
    } catch (error) {
      failedToStart(title, error);
      continue;
    }
    try {
      await step(title, bin("mocha"), withJourneys ? [acceptance, webJourneys] : [acceptance], {
        ...deployment,
        BASE_URL: platform.baseUrl,
      });
      if (mode === "embedded") {
        const grpcUrl = platform.grpcUrl;
        await step(`service ports (${mode})`, bin("mocha"), ["test/service-ports/**/*.spec.ts"], {
          ...deployment,
          ...serviceUrls(() => grpcUrl),
        });
        await step(
          `API fuzzing (${mode}): Schemathesis, every phase and check`,
          bin("mocha"),
          ["test/schemathesis/**/*.spec.ts"],
          { ...deployment, BASE_URL: platform.baseUrl },
        );
      }
    } finally {
      await platform.stop();
    }
  }

  await step(
    "web app: paying at a gateway's hosted checkout (embedded, a fake gateway on loopback)",
    bin("mocha"),
    ["test/hosted-checkout/**/*.spec.ts"],
    deployment,
  );

  const topology = "Envoy → services, FerretDB + Kafka, ClickHouse, 2 × product and order";
  let cluster: RunningCluster | undefined;
  let jaeger: JaegerInstance | undefined;
  try {
    jaeger = await startJaeger({ dataDir: join(scratch, "jaeger") });
    cluster = await startCluster({
      stateDir: join(scratch, "cluster"),
      mongodbUrl: ferret.url,
      kafkaBrokers: kafka.brokers,
      jwtSecret: deployment.JWT_SECRET,
      edgeSecret: deployment.EDGE_SECRET,
      peerSecret: deployment.PEER_SECRET,
      settings: {
        ADMIN_EMAIL: deployment.ADMIN_EMAIL,
        ADMIN_PASSWORD: deployment.ADMIN_PASSWORD,
        PAYMENT_KEY_SECRET: deployment.PAYMENT_KEY_SECRET,
        PAYMENT_WEBHOOK_SECRET: deployment.PAYMENT_WEBHOOK_SECRET,
        // The suites pay at the sandbox gateway's checkout: outside embedded mode, a choice.
        PAYMENT_SANDBOX: "true",
        CLICKHOUSE_URL: analyticsOnKafka,
      },
      edgeSettings: { CORS_ALLOWED_ORIGINS: deployment.CORS_ALLOWED_ORIGINS },
      replicas: { product: 2, order: 2 },
      // Every span and metric into the private Jaeger, exported within a second or two, so the
      // tracing suite reads them back quickly (Envoy flushes every 5 s whatever is set here).
      telemetry: {
        OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpEndpoint,
        OTEL_BSP_SCHEDULE_DELAY: "1000",
        OTEL_METRIC_EXPORT_INTERVAL: "2000",
      },
      logLevel: "warn",
      onIncident: (incident) =>
        process.stdout.write(`\n!!! ${incident.process} ${incident.exit}\n${incident.tail}\n`),
    });
  } catch (error) {
    failedToStart(`acceptance and web journeys (${topology})`, error);
  }
  if (cluster !== undefined && jaeger !== undefined) {
    try {
      await step(
        `tracing end to end (${topology}, Jaeger): an order placed and paid, one trace per request, the metrics`,
        bin("mocha"),
        ["test/tracing/**/*.spec.ts"],
        {
          ...deployment,
          BASE_URL: cluster.baseUrl,
          JAEGER_QUERY_URL: jaeger.queryUrl,
          JAEGER_METRICS_URL: jaeger.metricsUrl,
        },
      );
      await step(`acceptance and web journeys (${topology})`, bin("mocha"), [acceptance, webJourneys], {
        ...deployment,
        BASE_URL: cluster.baseUrl,
      });
      const running = cluster;
      await step(`service ports (${topology})`, bin("mocha"), ["test/service-ports/**/*.spec.ts"], {
        ...deployment,
        ...serviceUrls((service) => running.urlsOf(service)[0] ?? ""),
      });
      await step(
        `API fuzzing (${topology}): Schemathesis through Envoy, every phase and check`,
        bin("mocha"),
        ["test/schemathesis/**/*.spec.ts"],
        { ...deployment, BASE_URL: cluster.baseUrl },
      );
      const problems = cluster.problems();
      if (problems.length > 0) failedToStart(`${topology}: no process may exit`, problems.join("\n"));
    } finally {
      await cluster.stop();
    }
  }
  await jaeger?.stop();

  await step(
    "store outage (Envoy → services, FerretDB + Kafka, ClickHouse): the Order process's store cut for five minutes, nothing lost",
    bin("mocha"),
    ["test/outage/order-store-outage.spec.ts"],
    {
      ...deployment,
      MONGODB_URL: ferret.url,
      KAFKA_BROKERS: kafka.brokers,
      CLICKHOUSE_URL: analyticsOnKafka,
    },
  );
  // Its own mocha run: the acceptance support reads BASE_URL once per process, and this
  // topology is another. The store is the test's own (it pauses and restarts it).
  await step(
    "wedged store (Envoy → services on a FerretDB of its own): paused for 30 s, then restarted, every service recovers",
    bin("mocha"),
    ["test/outage/wedged-store.spec.ts"],
    { ...deployment, KAFKA_BROKERS: kafka.brokers, CLICKHOUSE_URL: `${clickHouse.url}/wedged_store` },
  );
} finally {
  await Promise.all([ferret.stop(), ferretOfEmbeddedBus.stop(), kafka.stop(), clickHouse.stop()]);
  await rm(scratch, { recursive: true, force: true });
}

const passed = results.reduce((n, r) => n + r.result.passed, 0);
const failed = results.reduce((n, r) => n + r.result.failed, 0);
const failedSteps = results.filter((r) => !r.result.ok).map((r) => r.title);
process.stdout.write("\nstep times:\n");
for (const { title, result } of results) {
  process.stdout.write(
    `  ${result.seconds.toFixed(1).padStart(6)} s  ${result.ok ? "ok    " : "FAILED"}  ${title}\n`,
  );
}
process.stdout.write(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  in all\n`);
process.stdout.write(
  `\n${failedSteps.length === 0 ? "all steps passed" : `failed steps: ${failedSteps.join(", ")}`}\n`,
);
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(failedSteps.length === 0 ? 0 : 1);

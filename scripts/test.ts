/**
 * `npm test`: everything, starting what it needs.
 *   1. static checks: TypeScript, ESLint, Prettier, buf lint, buf breaking;
 *   2. unit, RPC and port contract suites (with a private FerretDB and a private Kafka for
 *      the MongoDB and Kafka adapters); the Envoy configuration generator and the Envoy edge's
 *      own concerns (a real Envoy, fetched and cached on first use);
 *   3. the black-box acceptance suite over HTTP, against the platform in embedded mode, on
 *      FerretDB with the embedded bus, and on FerretDB with Kafka; then once more through a
 *      real Envoy in front of the embedded platform's services.
 * Ends with one line of totals.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFerretDb } from "./infra/ferretdb.js";
import { startKafka } from "./infra/kafka.js";
import { defaultDeployments } from "./envoy/envoy-options.js";
import { hostPortOf, startEnvoyProcess } from "./testing/envoy-process.js";
import { startPlatformProcess } from "./testing/platform-process.js";
import { runStep, type StepResult } from "./testing/run-step.js";

const bin = (name: string): string => join(import.meta.dirname, "..", "node_modules", ".bin", name);
const results: { title: string; result: StepResult }[] = [];

async function step(
  title: string,
  command: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<void> {
  results.push({ title, result: await runStep(title, command, args, env) });
}

/** A failure outside any suite (a server that would not start, or died): one failed step. */
function failedStep(title: string, error: unknown): void {
  process.stdout.write(`\n=== ${title}\n${error instanceof Error ? error.message : String(error)}\n`);
  results.push({ title, result: { ok: false, passed: 0, failed: 1 } });
}

const scratch = await mkdtemp(join(tmpdir(), "commerce-test-"));
const [ferret, kafka] = await Promise.all([
  startFerretDb({ dataDir: join(scratch, "ferretdb") }),
  startKafka({ dataDir: join(scratch, "kafka") }),
]);
try {
  await step("typecheck", bin("tsc"), ["--noEmit", "-p", "tsconfig.json"]);
  await step("lint", bin("eslint"), ["--max-warnings=0", "."]);
  await step("format", bin("prettier"), ["--check", "--log-level=warn", "."]);
  await step("buf lint", bin("buf"), ["lint"]);
  await step("buf breaking", process.execPath, ["--import", "tsx", "scripts/buf-breaking.ts"]);
  await step("unit, RPC and contract suites", bin("mocha"), ["services/*/src/**/*.spec.ts"], {
    MONGODB_URL: ferret.url,
  });
  await step("Envoy configuration and edge", bin("mocha"), [
    "scripts/**/*.spec.ts",
    "test/envoy/**/*.spec.ts",
  ]);

  const acceptanceEnv = {
    JWT_SECRET: randomBytes(64).toString("base64url"),
    ADMIN_EMAIL: "admin@acceptance.test",
    ADMIN_PASSWORD: randomBytes(12).toString("base64url"),
    LOG_LEVEL: "warn",
  };
  const modes: [string, NodeJS.ProcessEnv][] = [
    ["embedded", {}],
    ["FerretDB", { MONGODB_URL: ferret.url }],
    ["FerretDB + Kafka", { MONGODB_URL: ferret.url, KAFKA_BROKERS: kafka.brokers }],
  ];
  for (const [mode, env] of modes) {
    const platform = await startPlatformProcess({
      ...acceptanceEnv,
      ...env,
      DATA_DIR: join(scratch, `data-${mode.replace(/\W+/g, "-")}`),
    });
    try {
      await step(`acceptance (${mode})`, bin("mocha"), ["test/acceptance/**/*.spec.ts"], {
        ...acceptanceEnv,
        BASE_URL: platform.baseUrl,
      });
    } finally {
      await platform.stop();
    }
  }

  // The same suite through Envoy: in embedded mode one gRPC port serves every service, so every
  // deployment's cluster points at it.
  const title = "acceptance (Envoy → embedded services)";
  const platform = await startPlatformProcess({ ...acceptanceEnv, DATA_DIR: join(scratch, "data-envoy") });
  try {
    const upstream = hostPortOf(platform.grpcUrl);
    const envoy = await startEnvoyProcess({
      upstreams: new Map(defaultDeployments.map((name) => [name, upstream])),
      secrets: { jwtSecret: acceptanceEnv.JWT_SECRET, edgeSecret: randomBytes(32).toString("base64url") },
    });
    try {
      await step(title, bin("mocha"), ["test/acceptance/**/*.spec.ts"], {
        ...acceptanceEnv,
        BASE_URL: envoy.baseUrl,
      });
      const died = envoy.unexpectedExit();
      if (died !== undefined) failedStep(`${title}: Envoy exited during the suite`, died);
    } finally {
      await envoy.stop();
    }
  } catch (error) {
    failedStep(title, error);
  } finally {
    await platform.stop();
  }
} finally {
  await Promise.all([ferret.stop(), kafka.stop()]);
  await rm(scratch, { recursive: true, force: true });
}

const passed = results.reduce((n, r) => n + r.result.passed, 0);
const failed = results.reduce((n, r) => n + r.result.failed, 0);
const failedSteps = results.filter((r) => !r.result.ok).map((r) => r.title);
process.stdout.write(
  `\n${failedSteps.length === 0 ? "all steps passed" : `failed steps: ${failedSteps.join(", ")}`}\n`,
);
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(failedSteps.length === 0 ? 0 : 1);

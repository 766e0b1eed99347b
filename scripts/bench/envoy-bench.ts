/**
 * `GET /api/products/{id}` four ways, in one run, each loaded the same way (autocannon over
 * loopback):
 *   (a) through Envoy to the Product service in its own process (the compiled build, as in a
 *       cluster; embedded store, Kafka for its events);
 *   (b) through the same Envoy route to the fixed-product upstream, which answers GetProduct
 *       with a constant: Envoy's own ceiling for this route;
 *   (c) through the local edge in embedded mode (one process, in-process calls);
 *   (d) the bare Node server's figure, measured by the caller.
 * Target: (a) at least 50% of (b). Figures only; nothing is asserted, except that every target
 * answers the product before it is loaded.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { startServices } from "../cluster/cluster.js";
import { hostPortOf, startEnvoyProcess, type EnvoyProcess } from "../../envoy/src/envoy-process.js";
import { startPlatformProcess } from "../testing/platform-process.js";
import { startChildServer } from "./child-server.js";
import { createProductAtService } from "./service-product.js";
import { formatResult, measure, type LoadResult } from "./load.js";

export interface EnvoyBenchOptions {
  readonly kafkaBrokers: string;
  readonly scratch: string;
  readonly connections: number;
  readonly seconds: number;
  /** Envoy's worker threads, the same for (a) and (b). */
  readonly envoyConcurrency: number;
  /** (d), when the caller measured it. */
  readonly bare?: LoadResult | undefined;
}

const secret = (): string => randomBytes(32).toString("base64url");

async function expectProduct(url: string): Promise<void> {
  const response = await fetch(url);
  const body = (await response.json()) as { id?: string };
  if (response.status !== 200 || body.id === undefined || body.id === "") {
    throw new Error(`${url} answered ${response.status} ${JSON.stringify(body)}`);
  }
}

async function throughEnvoy(
  upstream: string,
  path: string,
  options: EnvoyBenchOptions,
  secrets: { jwtSecret: string; edgeSecret: string },
): Promise<LoadResult> {
  let envoy: EnvoyProcess | undefined;
  try {
    envoy = await startEnvoyProcess({
      upstreams: new Map([["product", [hostPortOf(upstream)]]]),
      secrets,
      concurrency: options.envoyConcurrency,
    });
    // Envoy answers 503 until its first health check of the upstream passed.
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await expectProduct(`${envoy.baseUrl}${path}`);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    return await measure({
      url: `${envoy.baseUrl}${path}`,
      connections: options.connections,
      seconds: options.seconds,
    });
  } finally {
    await envoy?.stop();
  }
}

export async function benchEnvoy(options: EnvoyBenchOptions): Promise<string[]> {
  const secrets = { jwtSecret: secret() + secret(), edgeSecret: secret() };
  const lines: string[] = [];

  // (a) Envoy → the Product service's own process.
  const services = await startServices({
    stateDir: join(options.scratch, "envoy-bench"),
    kafkaBrokers: options.kafkaBrokers,
    jwtSecret: secrets.jwtSecret,
    edgeSecret: secrets.edgeSecret,
    peerSecret: secret(),
    services: ["product", "order"],
    logLevel: "warn",
  });
  let toService: LoadResult;
  try {
    const productUrl = services.urlsOf("product")[0] ?? "";
    const productId = await createProductAtService(productUrl, secrets.edgeSecret, "Envoy bench product");
    toService = await throughEnvoy(productUrl, `/api/products/${productId}`, options, secrets);
  } finally {
    await services.stop();
  }
  lines.push(formatResult("(a) Envoy → Product service process", toService));

  // (b) The same route to an upstream that does nothing.
  const fixed = await startChildServer("fixed-product-upstream.ts");
  let toFixed: LoadResult;
  try {
    toFixed = await throughEnvoy(fixed.url, "/api/products/any", options, secrets);
  } finally {
    await fixed.stop();
  }
  lines.push(formatResult("(b) Envoy → fixed-product upstream", toFixed));

  // (c) The local edge in embedded mode.
  const admin = { email: "admin@bench.test", password: "bench-admin-password" };
  const platform = await startPlatformProcess({
    DATA_DIR: join(options.scratch, "envoy-bench-embedded"),
    JWT_SECRET: secrets.jwtSecret,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    LOG_LEVEL: "warn",
  });
  let local: LoadResult;
  try {
    const login = await fetch(`${platform.baseUrl}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(admin),
    });
    const { token } = (await login.json()) as { token: string };
    const created = await fetch(`${platform.baseUrl}/api/products/bulk`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify([
        { name: "Edge bench product", price: 499.99, stock: 100, brand: "Bench", categoryId: "books" },
      ]),
    });
    const { ids } = (await created.json()) as { ids: string[] };
    const url = `${platform.baseUrl}/api/products/${ids[0] ?? ""}`;
    await expectProduct(url);
    local = await measure({ url, connections: options.connections, seconds: options.seconds });
  } finally {
    await platform.stop();
  }
  lines.push(formatResult("(c) local edge, embedded", local));
  if (options.bare !== undefined) lines.push(formatResult("(d) bare Node http, fixed JSON", options.bare));

  const percent = (part: LoadResult, whole: LoadResult | undefined): string =>
    whole === undefined ? "n/a" : `${((100 * part.requestsPerSecond) / whole.requestsPerSecond).toFixed(1)}%`;
  lines.push(
    `  (a) / (b): ${percent(toService, toFixed)} (target >= 50%)   (a) / (d): ${percent(toService, options.bare)}   (c) / (d): ${percent(local, options.bare)}`,
    `  Envoy ${options.envoyConcurrency} worker thread(s); every process shares the machine's cores with the load generator`,
  );
  return lines;
}

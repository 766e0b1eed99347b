/**
 * The container images, proven without Docker (ADR 0082): the
 * repository's Dockerfile is replayed instruction by instruction (image-replay.ts), every
 * target is checked against the images' contract, and all of them are started together from
 * their replayed folders, as the chart runs them: on a private FerretDB, Kafka and ClickHouse,
 * with the secrets and peer addresses the topology gives, as the image's user, each the first
 * process of its own PID namespace. Each must answer gRPC health on its port, change nothing in
 * its image, and exit 0 soon after SIGTERM.
 */
import type { DescService } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AnalyticsService } from "@commerce/runtime/gen/commerce/analytics/v1/analytics_pb.js";
import { RecommendationService } from "@commerce/runtime/gen/commerce/recommendation/v1/recommendation_pb.js";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { NotificationService } from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";
import { serviceTrustEnvironment } from "@commerce/runtime/identity";
import { freePorts } from "../cluster/free-ports.js";
import { deployableServices, type ServiceName } from "../cluster/service-catalog.js";
import { startClickHouse, type ClickHouseInstance } from "../infra/clickhouse.js";
import { startFerretDb, type FerretDbInstance } from "../infra/ferretdb.js";
import { startKafka, type KafkaInstance } from "../infra/kafka.js";
import { listBuildContext } from "./build-context.js";
import { parseDockerfile, type Dockerfile } from "./dockerfile.js";
import { createImageReplay, pinnedNodeVersion, type ReplayedImage } from "./image-replay.js";
import { projectNode, projectNodeVersion } from "./project-node.js";
import { startReplayedContainer, type ReplayedContainer } from "./replayed-container.js";

const root = join(import.meta.dirname, "..", "..");
const log = (line: string): void => void process.stdout.write(`      ${line}\n`);

/**
 * The API each image serves, whose name its health service answers for (none: the processor and
 * the public site).
 */
const publicApi: Record<ServiceName, DescService | undefined> = {
  auth: AuthService,
  user: UserService,
  product: ProductService,
  order: OrderService,
  notification: NotificationService,
  payment: PaymentService,
  analytics: AnalyticsService,
  "analytics-processor": undefined,
  recommendation: RecommendationService,
  web: undefined,
};

/** Every path under a folder with what would show a change: kind, size, mode, owner, mtime. */
function snapshot(folder: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(folder, relative))) {
      const path = join(relative, name);
      const stat = lstatSync(join(folder, path));
      entries.set(path, `${stat.mode}:${stat.uid}:${stat.size}:${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk("");
  return entries;
}

function changes(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changed = [...after].filter(([path, state]) => before.get(path) !== state).map(([path]) => path);
  return [
    ...changed,
    ...[...before.keys()].filter((path) => !after.has(path)).map((path) => `${path} (removed)`),
  ];
}

function folderBytes(folder: string): number {
  let bytes = 0;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += lstatSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

describe("the container images (the Dockerfile replayed without Docker)", function () {
  this.timeout(900_000);
  let scratch: string;
  let dockerfile: Dockerfile;
  const images = new Map<ServiceName, ReplayedImage>();
  let ferret: FerretDbInstance | undefined;
  let kafka: KafkaInstance | undefined;
  let clickHouse: ClickHouseInstance | undefined;
  const imageOf = (name: ServiceName): ReplayedImage => {
    const image = images.get(name);
    if (image === undefined) throw new Error(`no image ${name}`);
    return image;
  };

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), "images-"));
    chmodSync(scratch, 0o755); // the images' user must reach the image folders
    dockerfile = parseDockerfile(readFileSync(join(root, "Dockerfile"), "utf8"));
    const infra = Promise.all([
      startFerretDb({ dataDir: join(scratch, "ferretdb") }),
      startKafka({ dataDir: join(scratch, "kafka") }),
      startClickHouse({ dataDir: join(scratch, "clickhouse") }),
    ]);
    infra.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    const replay = createImageReplay({
      dockerfile,
      contextDir: root,
      scratchDir: join(scratch, "stages"),
      node: await projectNode(root),
      log,
    });
    const started = Date.now();
    for (const { name } of deployableServices) images.set(name, await replay.replay(name));
    log(`replayed ${images.size} targets in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    [ferret, kafka, clickHouse] = await infra;
  });

  after(async () => {
    await Promise.all([ferret?.stop(), kafka?.stop(), clickHouse?.stop()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it("has one target per deployable service, on the official image of the project's Node (.node-version), pinned by digest", () => {
    const names = dockerfile.stages.map((s) => s.name);
    expect(names).to.include.members(deployableServices.map((s) => s.name));
    const bases = [...new Set(dockerfile.stages.map((s) => s.from).filter((from) => !names.includes(from)))];
    expect(bases).to.have.length(1);
    expect(pinnedNodeVersion(bases[0] ?? "")).to.equal(projectNodeVersion(root));
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    for (const image of images.values()) {
      expect(image.labels.get("org.opencontainers.image.version"), image.target).to.equal(version);
      expect(image.labels.get("org.opencontainers.image.title"), image.target).to.equal(
        `commerce-platform/${image.target}`,
      );
      expect(bases[0], image.target).to.include(
        `@${image.labels.get("org.opencontainers.image.base.digest") ?? "?"}`,
      );
    }
  });

  it("sends Docker a small build context: the build's inputs, no dependencies, build output or tests", () => {
    const context = listBuildContext(root);
    const bytes = context.reduce((n, entry) => n + entry.bytes, 0);
    log(`build context: ${context.length} files, ${megabytes(bytes)}`);
    expect(bytes).to.be.below(2e6);
    const paths = context.map((entry) => entry.path);
    expect(paths).to.include.members([
      "package-lock.json",
      "scripts/build.ts",
      "proto/commerce/auth/v1/auth.proto",
    ]);
    const leftOut = /(^|\/)(node_modules|\.build|\.data|\.git|gen|testing)(\/|$)|\.spec\.ts$|^(test|docs)\//;
    expect(paths.filter((path) => leftOut.test(path))).to.deep.equal([]);
  });

  it("runs each service as the contract says: node <entry> in exec form, in /app, as 10001:10001, with its defaults", () => {
    for (const service of deployableServices) {
      const image = imageOf(service.name);
      expect([...image.entrypoint, ...image.cmd], service.name).to.deep.equal(["node", service.entry]);
      expect(image.workdir, service.name).to.equal("/app");
      expect(image.user, service.name).to.equal("10001:10001");
      expect(Object.fromEntries(image.env), service.name).to.include({
        NODE_ENV: "production",
        HOST: "0.0.0.0",
        PORT: "9090",
        DATA_DIR: "/data",
      });
      expect(image.exposed, service.name).to.deep.equal(["9090"]);
      expect(image.stopSignal, service.name).to.equal("SIGTERM");
    }
  });

  it("holds the compiled build with production dependencies only, no chDB, nothing the service could change, no secret", () => {
    const image = imageOf("auth");
    const app = join(image.rootfs, "app");
    const modules = readdirSync(join(app, "node_modules"));
    for (const dev of [
      "typescript",
      "tsx",
      "mocha",
      "chai",
      "eslint",
      "prettier",
      "google-proto-files",
      "chdb",
      "@chdb",
      // The typed client (client/) is for integrators' apps, and so is its runtime.
      "openapi-typescript",
      "openapi-fetch",
      // The web app runs in browsers: the image holds its built files, not what built them.
      "react",
      "react-dom",
      "vite",
      "rolldown",
    ]) {
      expect(modules, dev).to.not.include(dev);
    }
    expect(readdirSync(join(app, "node_modules", "@commerce"))).to.not.include.members(["client", "web"]);
    expect(readdirSync(join(app, "node_modules", "@bufbuild"))).to.not.include.members([
      "buf",
      "protoc-gen-es",
    ]);
    for (const { entry } of deployableServices) expect(existsSync(join(app, entry)), entry).to.equal(true);
    // What the public site serves, read from the image.
    for (const file of [
      "services/runtime/gen/openapi.json",
      "services/edge/site/docs/vendor/swagger-ui-bundle.js",
      "services/edge/site/app/index.html",
    ])
      expect(existsSync(join(app, file)), file).to.equal(true);
    const sources = readdirSync(join(app, "services"), { recursive: true, encoding: "utf8" });
    expect(sources.filter((path) => /\.ts$/.test(path) && !path.endsWith(".d.ts"))).to.deep.equal([]);
    const files = readdirSync(image.rootfs, { recursive: true, withFileTypes: true });
    const writable = files.filter((f) => {
      const stat = lstatSync(join(f.parentPath, f.name));
      return !stat.isSymbolicLink() && (stat.uid !== 0 || (stat.mode & 0o022) !== 0);
    });
    expect(writable.map((f) => join(f.parentPath, f.name))).to.deep.equal([]);
    const secretFile = /^(\.npmrc|\.env.*|.*\.pem|.*\.key|secrets)$/;
    expect(files.filter((f) => secretFile.test(f.name)).map((f) => f.name)).to.deep.equal([]);
    expect([...image.env.keys()].filter((name) => /SECRET|PASSWORD|TOKEN|KEY/.test(name))).to.deep.equal([]);
    log(
      `image content on top of the Node image: ${megabytes(folderBytes(image.rootfs))} (every target the same files)`,
    );
  });

  describe("every image started as the chart runs it", () => {
    /** Each service's container, how to start it again, and how often it was restarted. */
    const containers = new Map<
      ServiceName,
      {
        container: ReplayedContainer;
        port: number;
        start: () => Promise<ReplayedContainer>;
        restarts: number;
      }
    >();
    let imageBefore: Map<string, string>;
    const deployment = {
      JWT_SECRET: randomBytes(64).toString("base64url"),
      EDGE_SECRET: randomBytes(32).toString("base64url"),
      PEER_SECRET: randomBytes(32).toString("base64url"),
      ADMIN_EMAIL: "admin@images.test",
      ADMIN_PASSWORD: randomBytes(12).toString("base64url"),
      PAYMENT_KEY_SECRET: randomBytes(32).toString("base64url"),
      PAYMENT_WEBHOOK_SECRET: randomBytes(32).toString("base64url"),
      // No gateway here: the Payment service starts only when told to use the sandbox.
      PAYMENT_SANDBOX: "true",
    };

    before(async () => {
      // Every target shares the `service` stage's folder: one snapshot covers them all.
      imageBefore = snapshot(imageOf("auth").rootfs);
      const ports = await freePorts(deployableServices.length);
      const portOf = (name: ServiceName): number =>
        ports[deployableServices.findIndex((s) => s.name === name)] ?? 0;
      for (const [index, service] of deployableServices.entries()) {
        const volumes = join(scratch, "volumes", service.name);
        for (const folder of ["data", "tmp"]) mkdirSync(join(volumes, folder), { recursive: true });
        const env: Record<string, string> = {
          // The processes share this machine's network, where a pod has its own: a port each.
          PORT: String(ports[index]),
          LOG_LEVEL: "warn",
        };
        // The public site is given nothing of the platform, as in the chart.
        if (service.kind === "service") {
          Object.assign(env, {
            MONGODB_URL: ferret?.url ?? "",
            KAFKA_BROKERS: kafka?.brokers ?? "",
            // Its own credentials only, as the chart mounts them.
            ...serviceTrustEnvironment(service.name, {
              edgeSecret: deployment.EDGE_SECRET,
              peerSecret: deployment.PEER_SECRET,
            }),
          });
        }
        for (const [variable, peer] of Object.entries(service.peers)) {
          if (peer !== undefined) env[variable] = `http://127.0.0.1:${portOf(peer)}`;
        }
        const settings: Record<string, string> = {
          ...deployment,
          CLICKHOUSE_URL: `${clickHouse?.url ?? ""}/images`,
        };
        for (const setting of service.owns)
          if (settings[setting] !== undefined) env[setting] = settings[setting];
        const start = (): Promise<ReplayedContainer> =>
          startReplayedContainer({
            image: imageOf(service.name),
            env,
            volumes: {
              ...(service.kind === "service" ? { "/data": join(volumes, "data") } : {}),
              "/tmp": join(volumes, "tmp"),
            },
          });
        containers.set(service.name, {
          container: await start(),
          port: ports[index] ?? 0,
          start,
          restarts: 0,
        });
      }
    });

    after(() => {
      for (const { container } of containers.values()) {
        try {
          container.signal("SIGKILL");
        } catch {
          // already gone
        }
      }
    });

    for (const service of deployableServices) {
      it(`${service.name}: listens on its PORT and answers gRPC health SERVING, as the image's user, PID 1, on the image's Node`, async () => {
        const running = containers.get(service.name);
        if (running === undefined) throw new Error("not started");
        const health = createClient(
          Health,
          createGrpcTransport({ baseUrl: `http://127.0.0.1:${running.port}` }),
        );
        const names = [
          "",
          ...(publicApi[service.name] === undefined ? [] : [publicApi[service.name]?.typeName ?? ""]),
        ];
        const deadline = Date.now() + 90_000;
        for (;;) {
          const exit = running.container.exit();
          if (exit !== undefined) {
            const exited = `exited with ${exit.code ?? exit.signal}:\n${running.container.output()}`;
            // As the kubelet does (restartPolicy Always), but twice at most: an image that cannot
            // start keeps failing, one that lost a start-up race with a peer comes up.
            if (running.restarts >= 2) throw new Error(exited);
            log(`${service.name} ${exited.trimEnd()}\n      restarted, as the kubelet would`);
            running.restarts += 1;
            running.container = await running.start();
            continue;
          }
          try {
            const answers = await Promise.all(names.map((name) => health.check({ service: name })));
            expect(answers.map((a) => a.status)).to.deep.equal(
              names.map(() => HealthCheckResponse_ServingStatus.SERVING),
            );
            break;
          } catch (error) {
            if (Date.now() > deadline) {
              throw new Error(`no health answer:\n${running.container.output()}`, { cause: error });
            }
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
        expect(running.container.isolated, "run as root to replay USER and PID 1").to.equal(true);
        const status = readFileSync(`/proc/${running.container.pid}/status`, "utf8");
        expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).to.equal("10001");
        expect(/^Gid:\s+(\d+)/m.exec(status)?.[1]).to.equal("10001");
        expect(/^NSpid:.*\s1$/m.test(status), "PID 1 in its namespace").to.equal(true);
        // The stand-in for the image's Node, the project's, whatever Node runs this suite.
        expect(readlinkSync(`/proc/${running.container.pid}/exe`)).to.equal(
          join(imageOf(service.name).nodeBin, "node"),
        );
      });
    }

    it("product: answers a real RPC from its image (the categories it seeds at start)", async () => {
      const port = containers.get("product")?.port ?? 0;
      const products = createClient(
        ProductService,
        createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` }),
      );
      const { categories } = await products.listCategories({});
      expect(categories.map((c) => c.id)).to.include.members(["books", "electronics"]);
    });

    it("web: serves the public site from its image's files: the web app, the API's description and the reference page", async () => {
      const base = `http://127.0.0.1:${containers.get("web")?.port ?? 0}`;
      const description = await fetch(`${base}/openapi.json`);
      expect(description.status).to.equal(200);
      expect(((await description.json()) as { openapi: string }).openapi).to.equal("3.1.0");
      const page = await fetch(`${base}/docs`);
      expect(page.status).to.equal(200);
      expect(page.headers.get("content-type")).to.match(/^text\/html/);
      expect(await page.text()).to.include('src="/docs/vendor/swagger-ui-bundle.js"');
      const bundle = await fetch(`${base}/docs/vendor/swagger-ui-bundle.js`);
      expect(bundle.status).to.equal(200);
      expect((await bundle.arrayBuffer()).byteLength).to.be.greaterThan(1e6);
      for (const path of ["/", "/products/prd_42"]) {
        const app = await fetch(`${base}${path}`);
        expect(app.status, path).to.equal(200);
        expect(app.headers.get("cache-control"), path).to.equal("no-cache");
        const script = /src="(\/assets\/[^"]+\.js)"/.exec(await app.text())?.[1] ?? "";
        expect((await fetch(`${base}${script}`)).status, script).to.equal(200);
      }
      const other = await fetch(`${base}/api/products`);
      expect(other.status).to.equal(404);
      expect(await other.json()).to.deep.equal({
        status: 404,
        code: "NOT_FOUND",
        message: "no route for this path",
      });
    });

    it("no process wrote in its image: only the volumes (/data, /tmp) may change", () => {
      expect(changes(imageBefore, snapshot(imageOf("auth").rootfs))).to.deep.equal([]);
    });

    for (const service of deployableServices) {
      it(`${service.name}: exits 0 within 10 s of SIGTERM (Node as PID 1 drains and stops)`, async () => {
        const running = containers.get(service.name);
        if (running === undefined) throw new Error("not started");
        const sent = Date.now();
        running.container.signal("SIGTERM");
        const exit = await Promise.race([
          running.container.exited,
          new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000)),
        ]);
        expect(exit, running.container.output()).to.deep.equal({ code: 0, signal: null });
        log(`${service.name} stopped in ${Date.now() - sent} ms`);
      });
    }
  });

  it("the analytics image refuses to start without CLICKHOUSE_URL, naming it (chDB is not in the image)", async () => {
    const volumes = join(scratch, "volumes", "analytics-without-clickhouse");
    for (const folder of ["data", "tmp"]) mkdirSync(join(volumes, folder), { recursive: true });
    const [port] = await freePorts(1);
    const container = await startReplayedContainer({
      image: imageOf("analytics"),
      env: {
        PORT: String(port),
        MONGODB_URL: ferret?.url ?? "",
        KAFKA_BROKERS: kafka?.brokers ?? "",
        ...serviceTrustEnvironment("analytics", { edgeSecret: "e".repeat(40), peerSecret: "p".repeat(40) }),
      },
      volumes: { "/data": join(volumes, "data"), "/tmp": join(volumes, "tmp") },
    });
    const exit = await Promise.race([
      container.exited,
      new Promise<"running">((resolve) => setTimeout(() => resolve("running"), 30_000)),
    ]);
    if (exit === "running") container.signal("SIGKILL");
    expect(exit, container.output()).to.deep.equal({ code: 1, signal: null });
    expect(container.output()).to.include("set CLICKHOUSE_URL");
  });
});

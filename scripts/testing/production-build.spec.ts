/**
 * What a container image does, proven without one (docs/decisions.md "Production build"): copy
 * the build output, install production dependencies only (`npm ci --omit=dev`), and start one
 * service with plain `node`. It must become ready, answer gRPC health and a real RPC, and stop
 * cleanly on SIGTERM. Needs KAFKA_BROKERS (npm test passes its private broker).
 */
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { expect } from "chai";
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";
import { sha256 } from "@commerce/runtime/identity/request-trust.js";
import { build, distDir } from "../build.js";
import { freePorts } from "../cluster/free-ports.js";

describe("the production build", function () {
  this.timeout(300_000);
  let scratch: string;
  let service: ChildProcess | undefined;

  before(() => {
    if (process.env["KAFKA_BROKERS"] === undefined) throw new Error("set KAFKA_BROKERS (npm test does)");
    build(() => undefined);
    scratch = mkdtempSync(join(tmpdir(), "production-build-"));
    cpSync(distDir, scratch, { recursive: true, filter: (source) => !source.includes("node_modules") });
    execFileSync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: scratch,
      stdio: ["ignore", "ignore", "inherit"],
    });
  });

  after(() => {
    service?.kill("SIGKILL");
    rmSync(scratch, { recursive: true, force: true });
  });

  it("installs no development dependency", () => {
    const installed = readdirSync(join(scratch, "node_modules"));
    for (const tool of ["typescript", "tsx", "mocha", "chai", "eslint", "@bufbuild"]) {
      if (tool === "@bufbuild") {
        expect(readdirSync(join(scratch, "node_modules", tool))).to.not.include("buf");
      } else expect(installed, tool).to.not.include(tool);
    }
    expect(existsSync(join(scratch, "services", "product", "src", "main.ts"))).to.equal(false);
  });

  it("starts the Product service with plain node, serves, and stops cleanly on SIGTERM", async () => {
    const [port] = await freePorts(1);
    const child = spawn(process.execPath, [join(scratch, "services", "product", "src", "main.js")], {
      cwd: scratch,
      env: {
        PATH: process.env["PATH"] ?? "",
        NODE_ENV: "production",
        PORT: String(port),
        DATA_DIR: join(scratch, "data"),
        LOG_LEVEL: "warn",
        KAFKA_BROKERS: process.env["KAFKA_BROKERS"] ?? "",
        PEER_SECRET: "p".repeat(40),
        EDGE_SECRET_SHA256: Buffer.from(sha256("e".repeat(40))).toString("hex"),
        ORDER_SERVICE_URL: "http://127.0.0.1:9",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    service = child;
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const started = Date.now();
    while (!output.includes("product service listening")) {
      if (Date.now() - started > 60_000 || child.exitCode !== null)
        throw new Error(`did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` });
    const health = await createClient(Health, transport).check({ service: ProductService.typeName });
    expect(health.status).to.equal(HealthCheckResponse_ServingStatus.SERVING);
    const { categories } = await createClient(ProductService, transport).listCategories({});
    expect(categories.map((c) => c.id)).to.include.members(["books", "electronics"]);

    child.kill("SIGTERM");
    expect(await exited).to.equal(0);
  });
});

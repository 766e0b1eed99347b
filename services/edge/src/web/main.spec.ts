import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { expect } from "chai";
import { Health, HealthCheckResponse_ServingStatus } from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";

const entry = join(import.meta.dirname, "main.ts");

/** The `web` entry point as its own process, with exactly `env` (and a PATH). */
function startWeb(env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ["--import", "tsx", entry], {
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env },
  });
}

/** Collects a process's output; resolves with its base URL once it says where it listens. */
function listening(child: ChildProcessWithoutNullStreams, output: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer): void => {
      output.push(chunk.toString());
      const found = /listening on (http:\/\/\S+)/.exec(output.join(""));
      if (found?.[1] !== undefined) resolve(found[1]);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${output.join("")}`)));
  });
}

describe("the web process (services/edge/src/web/main.ts)", function () {
  this.timeout(30_000);
  let child: ChildProcessWithoutNullStreams;
  let base: string;
  const output: string[] = [];

  before(async () => {
    // Where to listen and how much to log: nothing else, no store, no bus, no secret.
    child = startWeb({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" });
    base = await listening(child, output);
  });

  after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("serves the API's description and the reference page", async () => {
    const description = await fetch(`${base}/openapi.json`);
    expect(description.status).to.equal(200);
    expect(description.headers.get("content-type")).to.equal("application/json");
    expect(((await description.json()) as { openapi: string }).openapi).to.equal("3.1.0");
    const page = await fetch(`${base}/docs/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get("content-security-policy")).to.include("default-src 'self'");
    const refused = await fetch(`${base}/openapi.json`, { method: "POST", body: "{}" });
    expect(refused.status).to.equal(405);
    expect(refused.headers.get("allow")).to.equal("GET, HEAD");
  });

  it("serves the web app at / and on its pages", async () => {
    for (const path of ["/", "/products/prd_42"]) {
      const page = await fetch(`${base}${path}`);
      expect(page.status, path).to.equal(200);
      expect(page.headers.get("content-type"), path).to.equal("text/html; charset=utf-8");
      expect(page.headers.get("content-security-policy"), path).to.include("frame-ancestors 'none'");
      expect(await page.text(), path).to.include('<div id="root"></div>');
    }
  });

  it("answers any other path with the JSON 404 of both edges", async () => {
    for (const path of ["/api/products", "/docs/nothing-here", "/assets/nothing-here.js", "/api"]) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).to.equal(404);
      expect(await response.json(), path).to.deep.equal({
        status: 404,
        code: "NOT_FOUND",
        message: "no route for this path",
      });
    }
  });

  it("answers gRPC health SERVING on the same port, and its probes", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: base }));
    expect((await health.check({ service: "" })).status).to.equal(HealthCheckResponse_ServingStatus.SERVING);
    expect((await fetch(`${base}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: "ready" });
  });

  it("exits 0 on SIGTERM", async () => {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }, output.join("")).to.deep.equal({ code: 0, signal: null });
  });

  it("refuses a bad setting with exit 2, naming each", async () => {
    const bad = startWeb({ PORT: "http", LOG_LEVEL: "loud" });
    const out: string[] = [];
    bad.stderr.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    const [code] = (await once(bad, "exit")) as [number | null];
    expect(code).to.equal(2);
    expect(out.join("")).to.include("LOG_LEVEL must be one of").and.include("PORT must be a port number");
  });
});

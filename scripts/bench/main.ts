/**
 * `npm run bench`: measured figures, printed, never asserted (a benchmark is not a test).
 * Each server runs in its own process; the load generator runs here. Loopback only; every run
 * is bounded in time and stops by itself.
 *
 *   1. a bare Node http server answering a fixed JSON body: the ceiling of this machine;
 *   2. GET /api/users/me through the edge, embedded mode: JWT check, transcoding, the User
 *      service, the embedded store, and back.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPlatformProcess, type PlatformProcess } from "../testing/platform-process.js";
import { formatResult, measure } from "./load.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 8);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 32);

function startBareServer(): Promise<PlatformProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "bare-server.ts")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.once("data", (chunk: Buffer) => {
      const url = /(http:\/\/\S+?)\/api/.exec(chunk.toString())?.[1];
      if (url === undefined) {
        reject(new Error(`unexpected output: ${chunk.toString()}`));
        return;
      }
      resolve({
        baseUrl: url,
        stop: () =>
          new Promise((done) => {
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
    child.once("error", reject);
  });
}

async function json(url: string, init: RequestInit): Promise<unknown> {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  const response = await fetch(url, { ...init, headers });
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

const scratch = await mkdtemp(join(tmpdir(), "commerce-bench-"));
const lines: string[] = [];
try {
  const bare = await startBareServer();
  const ceiling = await measure({ url: `${bare.baseUrl}/`, connections, seconds });
  await bare.stop();
  lines.push(formatResult("bare Node http, fixed JSON", ceiling));

  const platform = await startPlatformProcess({
    DATA_DIR: join(scratch, "embedded"),
    JWT_SECRET: randomBytes(64).toString("base64url"),
    ADMIN_EMAIL: "admin@bench.test",
    ADMIN_PASSWORD: "bench-admin-password",
    LOG_LEVEL: "warn",
  });
  try {
    const user = {
      fullName: "Bench User",
      email: "bench@example.test",
      phoneNo: "+919876543210",
      password: "bench-password",
    };
    await json(`${platform.baseUrl}/api/auth/register`, { method: "POST", body: JSON.stringify(user) });
    const { token } = (await json(`${platform.baseUrl}/api/auth/login`, {
      method: "POST",
      body: JSON.stringify({ email: user.email, password: user.password }),
    })) as { token: string };
    const me = await measure({
      url: `${platform.baseUrl}/api/users/me`,
      headers: { authorization: `Bearer ${token}` },
      connections,
      seconds,
    });
    lines.push(formatResult("GET /api/users/me via edge (embedded)", me));
    lines.push(
      `ratio edge / bare: ${((100 * me.requestsPerSecond) / ceiling.requestsPerSecond).toFixed(1)}% (target >= 30%)`,
    );
  } finally {
    await platform.stop();
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
process.stdout.write(
  `\nbenchmark (${connections} connections, ${seconds} s each, loopback, 2 cores shared with the load generator)\n`,
);
process.stdout.write(`${lines.join("\n")}\n`);

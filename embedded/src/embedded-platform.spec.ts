import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { peerCredential, peerCredentialHeader } from "@commerce/runtime/identity";
import { createLogger } from "@commerce/runtime/logging";
import { loadEmbeddedConfig } from "./embedded-config.js";
import { startPlatform, type RunningPlatform } from "./embedded-platform.js";

const root = join(import.meta.dirname, "..", "..");

/** A standard @grpc/grpc-js client for one service, from the contract's .proto files. */
function grpcClient(file: string, serviceName: string, url: string): grpc.Client {
  const definition = protoLoader.loadSync(file, {
    includeDirs: [join(root, "proto"), join(root, ".build", "proto-deps")],
    keepCase: true,
    defaults: true,
    enums: String,
  });
  const loaded = grpc.loadPackageDefinition(definition);
  let service: unknown = loaded;
  for (const part of serviceName.split(".")) service = (service as Record<string, unknown>)[part];
  const Client = service as grpc.ServiceClientConstructor;
  return new Client(new URL(url).host, grpc.credentials.createInsecure());
}

const peerSecret = randomBytes(32).toString("base64url");
/** What Auth presents to User, the one caller of the Directory service. */
const authToUser = peerCredential(peerSecret, "auth", "user");

/** Auth's peer credential for User as gRPC metadata: what that peer sends. */
function asPeer(): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(peerCredentialHeader, authToUser);
  return metadata;
}

function unary<Res>(
  client: grpc.Client,
  method: string,
  request: object,
  metadata = new grpc.Metadata(),
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const call = (
      client as unknown as Record<
        string,
        (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, v: Res) => void) => void
      >
    )[method];
    if (call === undefined) throw new Error(`no method ${method}`);
    call.call(client, request, metadata, (error, value) => {
      if (error !== null) reject(error);
      else resolve(value);
    });
  });
}

async function start(dataDir: string, secret: string): Promise<RunningPlatform> {
  const config = loadEmbeddedConfig({
    DATA_DIR: dataDir,
    PORT: "0",
    GRPC_PORT: "0",
    JWT_SECRET: secret,
    PEER_SECRET: peerSecret,
    ADMIN_EMAIL: "admin@platform.test",
    ADMIN_PASSWORD: "platform-admin-pw",
  });
  return startPlatform({ config, logger: createLogger("silent", "test") });
}

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("startPlatform (embedded)", () => {
  let dataDir: string;
  let platform: RunningPlatform;
  const secret = randomBytes(64).toString("hex");

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "platform-spec-"));
    platform = await start(dataDir, secret);
  });
  after(async () => {
    await platform.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers gRPC health checks from a standard @grpc/grpc-js client", async () => {
    const health = grpcClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", platform.grpcUrl);
    try {
      expect(await unary(health, "Check", { service: "" })).to.deep.equal({ status: "SERVING" });
      expect(await unary(health, "Check", { service: "commerce.user.v1.UserService" })).to.deep.equal({
        status: "SERVING",
      });
      expect(await unary(health, "Check", { service: "no.such.Service" })).to.deep.equal({
        status: "SERVICE_UNKNOWN",
      });
    } finally {
      health.close();
    }
  });

  it("serves an internal RPC to a standard @grpc/grpc-js peer client, with validation and idempotency", async () => {
    const directory = grpcClient(
      "commerce/user/v1/directory.proto",
      "commerce.user.v1.DirectoryService",
      platform.grpcUrl,
    );
    try {
      const profile = {
        user_id: 4242,
        email: "grpc.client@example.test",
        full_name: "Grpc Client",
        phone_no: "+911234567890",
        role: "CUSTOMER",
        created_at: "2026-01-02T03:04:05",
      };
      expect(await unary(directory, "CreateProfile", profile, asPeer())).to.deep.equal({ created: true });
      expect(await unary(directory, "CreateProfile", profile, asPeer())).to.deep.equal({ created: false });
      const refused = await unary(
        directory,
        "CreateProfile",
        { ...profile, user_id: 4243, role: "ROOT" },
        asPeer(),
      ).then(
        () => undefined,
        (error: unknown) => error as grpc.ServiceError,
      );
      expect(refused?.code).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(refused?.details).to.include("role");
    } finally {
      directory.close();
    }
  });

  it("speaks the Connect protocol over HTTP/1.1 and gRPC-Web on the same port", async () => {
    const profile = {
      userId: 5151,
      email: "web.client@example.test",
      fullName: "Web",
      phoneNo: "",
      role: "CUSTOMER",
      createdAt: "2026-01-02T03:04:05",
    };
    const headers = { [peerCredentialHeader]: authToUser };
    const overConnect = createClient(
      DirectoryService,
      createConnectTransport({ baseUrl: platform.grpcUrl, httpVersion: "1.1" }),
    );
    expect((await overConnect.createProfile(profile, { headers })).created).to.equal(true);
    const overGrpcWeb = createClient(
      DirectoryService,
      createGrpcWebTransport({ baseUrl: platform.grpcUrl, httpVersion: "1.1" }),
    );
    expect((await overGrpcWeb.createProfile(profile, { headers })).created).to.equal(false);
  });

  it("keeps its data across a restart", async () => {
    const user = {
      fullName: "Kept User",
      email: "kept@example.test",
      phoneNo: "+919000000001",
      password: "kept-password",
    };
    expect((await post(`${platform.url}/api/auth/register`, user)).status).to.equal(201);
    await platform.close();
    platform = await start(dataDir, secret);
    const login = await post(`${platform.url}/api/auth/login`, {
      email: user.email,
      password: user.password,
    });
    expect(login.status).to.equal(200);
    const { token } = (await login.json()) as { token: string };
    const me = await fetch(`${platform.url}/api/users/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { fullName: string }).fullName).to.equal("Kept User");
  });

  it("answers its probes on the edge", async () => {
    expect(await (await fetch(`${platform.url}/healthz`)).json()).to.deep.equal({ status: "ok" });
    expect(await (await fetch(`${platform.url}/readyz`)).json()).to.deep.equal({ status: "ready" });
  });
});

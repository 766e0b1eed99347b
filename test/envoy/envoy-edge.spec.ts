/**
 * What only the Envoy edge can get wrong, checked on a real Envoy in front of a recording
 * stand-in of the services: headers a client must not be able to set, Envoy's own control
 * headers, paths that lead around the REST routes, Envoy's own error replies, and the raw
 * payment callback; and in front of the public site (the `web` deployable's host, recording
 * what reaches it): what the API's filters must not do to it. The behaviour both edges share is
 * the acceptance suite's.
 */
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { SignJWT } from "jose";
import { ConnectError } from "@connectrpc/connect";
import { errorBodyFromConnectError } from "@commerce/edge/rest-mapping";
import { createPublicSite, readPublicSiteFiles } from "@commerce/edge";
import { edgeCredential, trustNobody, noRevokedAccounts } from "@commerce/runtime/identity";
import { createLogger } from "@commerce/runtime/logging";
import { errorBody, type ErrorBody, createServiceHost, type ServiceHost } from "@commerce/runtime/server";
import { rawExchange } from "@commerce/runtime/testing";
import { startEnvoyProcess, hostPortOf, type EnvoyProcess } from "#envoy/envoy-process.js";
import {
  Code,
  internalDetail,
  startRecordingUpstream,
  type RecordingUpstream,
} from "./support/recording-upstream.js";

const jwtSecret = "s".repeat(64);
const edgeSecret = "the-edge-secret";
/** What Envoy presents to `service`: the edge's credential for that service alone (ADR 0106). */
const credentialFor = (service: string): string => edgeCredential(edgeSecret, service);

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/** An HTTP/1.1 request sent as written: no client-side path normalization. */
function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
  localAddress?: string,
): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    // Framed explicitly: Node sends a GET body unframed unless told its length.
    const framing = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) };
    const req = httpRequest(
      { host: hostname, port, method, path, headers: { ...headers, ...framing }, localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("end", () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          });
        });
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

function token(claims: { sub: string; role: string; uid?: unknown }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: claims.role, uid: "uid" in claims ? claims.uid : 7 })
    .setProtectedHeader({ alg: "HS512" })
    .setSubject(claims.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(jwtSecret));
}

/** A loopback port with nothing listening on it (a service that is down). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

const json = { "content-type": "application/json" };
const shop = "https://shop.example.test";
const login = JSON.stringify({ email: "a@example.test", password: "correct horse" });

describe("Envoy edge", function () {
  this.timeout(60_000);
  let upstream: RecordingUpstream;
  let envoy: EnvoyProcess;
  let base: string;

  before(async () => {
    upstream = await startRecordingUpstream();
    const services = hostPortOf(upstream.url);
    envoy = await startEnvoyProcess({
      upstreams: new Map([
        ["auth", [services]],
        ["user", [services]],
        ["payment", [services]],
        ["product", [{ host: "127.0.0.1", port: await closedPort() }]],
        ["web", [{ host: "127.0.0.1", port: await closedPort() }]],
      ]),
      secrets: { jwtSecret, edgeSecret },
      cors: { allowedOrigins: [shop], allowedHeaders: [], maxAgeSeconds: 600 },
    });
    base = envoy.baseUrl;
  });

  after(async () => {
    await envoy.stop();
    await upstream.close();
  });

  beforeEach(() => {
    upstream.calls.length = 0;
  });

  it("replaces forged identity and credential headers with its own", async () => {
    const answer = await send(base, "GET", "/api/users/me", {
      authorization: `Bearer ${await token({ sub: "asha@example.test", role: "CUSTOMER" })}`,
      "x-user-email": "admin@example.test",
      "x-user-role": "ADMIN",
      "x-user-id": "1",
      "x-commerce-edge-auth": "forged",
      "x-commerce-peer-auth": "forged",
      "x-commerce-client-address": "203.0.113.9",
    });
    expect(answer.status, answer.text).to.equal(200);
    expect(upstream.calls).to.have.length(1);
    const headers = upstream.calls[0]?.headers ?? {};
    expect(headers).to.include({
      "x-user-email": "asha@example.test",
      "x-user-role": "CUSTOMER",
      "x-user-id": "7",
      "x-commerce-edge-auth": credentialFor("user"),
      "x-commerce-client-address": "127.0.0.1",
    });
    expect(headers).not.to.have.any.keys("x-commerce-peer-auth", "authorization");
  });

  it("presents each service the edge's credential for it alone, never the edge secret", async () => {
    const bearer = `Bearer ${await token({ sub: "asha@example.test", role: "CUSTOMER" })}`;
    // The three clusters reach the same recording host: only the cluster decides the credential.
    await send(base, "GET", "/api/users/me", { authorization: bearer });
    await send(
      base,
      "POST",
      "/api/auth/login",
      { ...json, "x-commerce-edge-auth": credentialFor("user") },
      login,
    );
    await send(base, "POST", "/api/payments/callback", { "content-type": "application/json" }, "{}");
    const sent = upstream.calls.map((call) => [call.method, call.headers["x-commerce-edge-auth"]]);
    expect(sent).to.deep.equal([
      ["GetMe", credentialFor("user")],
      ["Login", credentialFor("auth")],
      ["HandleCallback", credentialFor("payment")],
    ]);
    expect(new Set(sent.map(([, credential]) => credential)).size).to.equal(3);
    expect(sent.map(([, credential]) => credential)).to.not.include(edgeSecret);
  });

  it("gives a public method no identity, even with a valid token, but still its credential", async () => {
    const answer = await send(
      base,
      "POST",
      "/api/auth/login",
      {
        ...json,
        authorization: `Bearer ${await token({ sub: "root@example.test", role: "ADMIN" })}`,
        "x-user-email": "root@example.test",
        "x-user-role": "ADMIN",
        "x-user-id": "1",
      },
      login,
    );
    expect(answer.status, answer.text).to.equal(200);
    const headers = upstream.calls[0]?.headers ?? {};
    expect(headers).not.to.have.any.keys("x-user-email", "x-user-role", "x-user-id", "authorization");
    expect(headers["x-commerce-edge-auth"]).to.equal(credentialFor("auth"));
  });

  it("names the client's address from its connection, never from what the client says", async () => {
    const forged = { ...json, "x-commerce-client-address": "127.0.0.1", "x-forwarded-for": "198.51.100.4" };
    const answer = await send(base, "POST", "/api/auth/login", forged, login, "127.0.0.2");
    expect(answer.status, answer.text).to.equal(200);
    expect(upstream.calls.map((call) => call.headers["x-commerce-client-address"])).to.deep.equal([
      "127.0.0.2",
    ]);
  });

  it("refuses a token without a user id (uid) that is a positive integer", async () => {
    for (const uid of [undefined, 0, -1, 1.5, "7", 2 ** 32]) {
      const answer = await send(base, "GET", "/api/users/me", {
        authorization: `Bearer ${await token({ sub: "asha@example.test", role: "CUSTOMER", uid })}`,
      });
      expect(answer.status, `uid ${String(uid)}: ${answer.text}`).to.equal(401);
    }
    expect(upstream.calls).to.have.length(0);
  });

  it("ignores a bad token on a public route", async () => {
    const answer = await send(
      base,
      "POST",
      "/api/auth/login",
      { ...json, authorization: "Bearer not.a.jwt" },
      login,
    );
    expect(answer.status, answer.text).to.equal(200);
    expect(JSON.parse(answer.text)).to.deep.equal({ token: "t", type: "Bearer" });
  });

  it("neither forwards nor obeys a client's x-envoy-* headers", async () => {
    const answer = await send(base, "GET", "/api/users/me", {
      authorization: `Bearer ${await token({ sub: "asha@example.test", role: "CUSTOMER" })}`,
      "x-test-delay-ms": "300",
      "x-envoy-upstream-rq-timeout-ms": "1",
      "x-envoy-upstream-rq-per-try-timeout-ms": "1",
      "x-envoy-max-retries": "3",
      "x-envoy-retry-on": "5xx,reset",
      "x-envoy-made-up": "anything",
    });
    expect(answer.status, answer.text).to.equal(200);
    expect(upstream.calls).to.have.length(1);
    const forwarded = Object.keys(upstream.calls[0]?.headers ?? {}).filter((name) =>
      name.startsWith("x-envoy-"),
    );
    expect(forwarded).not.to.include.members([
      "x-envoy-upstream-rq-timeout-ms",
      "x-envoy-upstream-rq-per-try-timeout-ms",
      "x-envoy-max-retries",
      "x-envoy-retry-on",
      "x-envoy-made-up",
    ]);
    expect(answer.headers).not.to.have.any.keys("x-envoy-upstream-service-time", "grpc-status");
  });

  it("does not retry a failed call because a client asked it to", async () => {
    const answer = await send(base, "GET", "/api/users/me", {
      authorization: `Bearer ${await token({ sub: "asha@example.test", role: "CUSTOMER" })}`,
      "x-test-code": String(Code.Unavailable),
      "x-envoy-max-retries": "3",
      "x-envoy-retry-grpc-on": "unavailable",
    });
    expect(answer.status).to.equal(503);
    expect(upstream.calls).to.have.length(1);
  });

  const codes = [
    Code.InvalidArgument,
    Code.NotFound,
    Code.AlreadyExists,
    Code.PermissionDenied,
    Code.ResourceExhausted,
    Code.FailedPrecondition,
    Code.Unauthenticated,
    Code.Unknown,
    Code.Internal,
    Code.Unavailable,
    Code.DeadlineExceeded,
    Code.Unimplemented,
  ];
  for (const code of codes) {
    const expected = errorBodyFromConnectError(new ConnectError(internalDetail, code));
    it(`answers an upstream ${expected.code} as the local edge does: ${expected.status}`, async () => {
      const answer = await send(base, "GET", "/api/users/me", {
        authorization: `Bearer ${await token({ sub: "asha@example.test", role: "CUSTOMER" })}`,
        "x-test-code": String(code),
      });
      expect(answer.status).to.equal(expected.status);
      expect(answer.headers["content-type"]).to.equal("application/json");
      expect(answer.text).to.equal(JSON.stringify(expected));
      if (expected.status >= 500) expect(answer.text).not.to.include("hunter2");
    });
  }

  it("answers 503 with the fixed text and Retry-After when a service is down, or the public site", async () => {
    for (const path of ["/api/products", "/openapi.json", "/docs/"]) {
      const answer = await send(base, "GET", path);
      expect(answer.status, path).to.equal(503);
      expect(JSON.parse(answer.text), path).to.deep.equal({
        status: 503,
        code: "UNAVAILABLE",
        message: "service temporarily unavailable, retry later",
      });
      expect(answer.headers["retry-after"], path).to.equal("5");
    }
  });

  const noRoute = { status: 404, code: "NOT_FOUND", message: "no route for this path" };
  const around = [
    ["POST", "/commerce.user.v1.DirectoryService/CreateProfile"],
    ["POST", "/api/../commerce.user.v1.UserService/GetMe"],
    ["POST", "/api/%2e%2e/commerce.auth.v1.AuthService/Login"],
    ["POST", "/api/auth/..%2F..%2Fcommerce.auth.v1.AuthService/Login"],
    ["GET", "/api/users/me/../../../commerce.user.v1.UserService/GetMe"],
    ["POST", "/api//..//commerce.auth.v1.AuthService/Login"],
  ] as const;
  for (const [method, path] of around) {
    it(`answers 404 to ${method} ${path} and calls nothing`, async () => {
      const answer = await send(base, method, path, json, "{}");
      expect(answer.status, answer.text).to.equal(404);
      expect(JSON.parse(answer.text)).to.deep.equal(noRoute);
      expect(upstream.calls).to.deep.equal([]);
    });
  }

  it("answers a gRPC call on the REST port with a gRPC error, and calls nothing", async () => {
    for (const path of [
      "/commerce.user.v1.UserService/GetMe",
      "/commerce.user.v1.DirectoryService/CreateProfile",
    ]) {
      const answer = await send(base, "POST", path, { "content-type": "application/grpc" }, Buffer.alloc(5));
      // Envoy frames its own replies to gRPC requests as gRPC: UNIMPLEMENTED stands for 404.
      expect([answer.status, answer.headers["grpc-status"]], path).to.deep.equal([200, "12"]);
      expect(answer.headers["grpc-message"], path).to.equal(JSON.stringify(noRoute));
    }
    expect(upstream.calls).to.deep.equal([]);
  });

  it("refuses a body over 1 MiB with 413 before any call", async () => {
    const body = JSON.stringify({ email: "a@example.test", password: "x".repeat(1024 * 1024) });
    const answer = await send(base, "POST", "/api/auth/login", json, body);
    expect(answer.status).to.equal(413);
    expect(JSON.parse(answer.text)).to.deep.equal({
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      message: "request body exceeds 1048576 bytes",
    });
    expect(upstream.calls).to.deep.equal([]);
  });

  // The refusals both edges make are the acceptance suite's (hostile-input.spec.ts).
  it("answers requests only Envoy refuses with the error body, and calls nothing", async () => {
    const refusals: [string, string, ErrorBody][] = [
      [
        "HTTP/1.0",
        "GET /api/users/me HTTP/1.0\r\n\r\n",
        errorBody(426, "UPGRADE_REQUIRED", "HTTP/1.1 or HTTP/2 is required"),
      ],
      [
        "an unknown transfer coding",
        "POST /api/auth/login HTTP/1.1\r\nhost: x\r\ntransfer-encoding: gzip\r\n\r\n",
        errorBody(501, "UNIMPLEMENTED", "not implemented"),
      ],
      [
        "a path it cannot normalize",
        "GET /api/users/me%00 HTTP/1.1\r\nhost: x\r\n\r\n",
        errorBody(400, "INVALID_ARGUMENT", "malformed HTTP request"),
      ],
    ];
    for (const [what, request, expected] of refusals) {
      const answer = await rawExchange(base, request);
      expect(answer.status, `${what}: ${answer.raw}`).to.equal(expected.status);
      expect(answer.headers.get("content-type"), what).to.equal("application/json");
      expect(JSON.parse(answer.body), what).to.deep.equal(expected);
    }
    expect(upstream.calls).to.deep.equal([]);
  });

  it("refuses an unknown JSON key even when its name is escaped", async () => {
    const body = '{"email":"a@example.test","password":"p","\\u0072ole":"ADMIN"}';
    const answer = await send(base, "POST", "/api/auth/register", json, body);
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.text)).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message:
        'invalid request: cannot decode message commerce.auth.v1.RegisterRequest from JSON: key "role" is unknown',
    });
    expect(upstream.calls).to.deep.equal([]);
  });

  it("passes the payment callback on raw, with its content type and signature", async () => {
    const raw = '{"provider_payment_id":"pay_1","provider_signature":"abc"}  ';
    const answer = await send(
      base,
      "POST",
      "/api/payments/callback",
      { "content-type": "application/json; charset=utf-8", "x-payment-signature": "sig-123" },
      raw,
    );
    expect(answer.status, answer.text).to.equal(200);
    expect(JSON.parse(answer.text)).to.deep.equal({ message: "callback processed" });
    const call = upstream.calls[0];
    expect(call?.httpBody).to.deep.equal({ contentType: "application/json; charset=utf-8", data: raw });
    expect(call?.headers["x-payment-signature"]).to.equal("sig-123");
  });

  // The CORS filter ignores direct responses, so refusals under /api/ are routes that name a
  // cluster and that the REST filter answers (envoy/src/cors.ts, rest-routes.ts).
  it("answers preflights and refusals under /api/ itself, calling nothing, even when the named service is down", async () => {
    const preflight = await send(base, "OPTIONS", "/api/products", {
      origin: shop,
      "access-control-request-method": "POST",
    });
    expect(preflight.status, preflight.text).to.equal(204);
    expect(preflight.headers["access-control-allow-methods"]).to.equal("GET, POST");
    const refused = await send(base, "OPTIONS", "/api/products", {
      origin: "https://elsewhere.example.test",
      "access-control-request-method": "POST",
    });
    expect(refused.status, refused.text).to.equal(405);
    expect(refused.headers["allow"]).to.equal("GET, POST");
    const wrongMethod = await send(base, "DELETE", "/api/categories", { origin: shop });
    expect(wrongMethod.status, wrongMethod.text).to.equal(405);
    expect(wrongMethod.headers["access-control-allow-origin"]).to.equal(shop);
    expect(upstream.calls).to.deep.equal([]);
  });

  it("refuses another method or an unknown path before reading a body over 1 MiB, as the local edge does", async () => {
    const body = "x".repeat(2 * 1024 * 1024);
    const wrongMethod = await send(base, "PATCH", "/api/auth/login", json, body);
    expect(wrongMethod.status, wrongMethod.text).to.equal(405);
    expect(JSON.parse(wrongMethod.text)).to.deep.equal({
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: "use POST for this path",
    });
    const unknown = await send(base, "POST", "/api/nothing-here", json, body);
    expect(unknown.status, unknown.text).to.equal(404);
    expect(upstream.calls).to.deep.equal([]);
  });

  it("answers its own probes", async () => {
    const healthz = await send(base, "GET", "/healthz");
    const readyz = await send(base, "GET", "/readyz");
    expect([healthz.status, healthz.text]).to.deep.equal([200, '{"status":"ok"}']);
    expect([readyz.status, readyz.text]).to.deep.equal([200, '{"status":"ready"}']);
  });
});

describe("Envoy edge: the public site", function () {
  this.timeout(60_000);
  /** The headers of every request that reached the site. */
  const arrived: Record<string, string | string[] | undefined>[] = [];
  let site: ServiceHost;
  let upstream: RecordingUpstream;
  let envoy: EnvoyProcess;
  let base: string;

  before(async () => {
    // One service beside the site, so the API's routes are there to stay the API's.
    upstream = await startRecordingUpstream();
    const pages = createPublicSite(readPublicSiteFiles());
    // The web process's host (services/runtime/src/server/web-process.ts), recording.
    site = createServiceHost({
      routes: [],
      logger: createLogger("silent", "web"),
      maxBodyBytes: 1024 * 1024,
      trust: trustNobody,
      revoked: noRevokedAccounts,
      isReady: () => true,
      pages: (req, res, pathname) => {
        arrived.push({ ...req.headers });
        return pages(req, res, pathname);
      },
    });
    const port = await site.listen(0, "127.0.0.1");
    envoy = await startEnvoyProcess({
      upstreams: new Map([
        ["web", [{ host: "127.0.0.1", port }]],
        ["auth", [hostPortOf(upstream.url)]],
      ]),
      secrets: { jwtSecret, edgeSecret },
      cors: { allowedOrigins: [shop], allowedHeaders: [], maxAgeSeconds: 600 },
    });
    base = envoy.baseUrl;
  });

  after(async () => {
    await envoy.stop();
    await site.close(100);
    await upstream.close();
  });

  beforeEach(() => {
    arrived.length = 0;
    upstream.calls.length = 0;
  });

  it("passes a request on without the edge credential, a token or identity headers, and adds no CORS headers", async () => {
    const answer = await send(base, "GET", "/openapi.json", {
      authorization: `Bearer ${await token({ sub: "admin@example.test", role: "ADMIN" })}`,
      origin: shop,
      "x-commerce-edge-auth": "forged",
      "x-user-role": "ADMIN",
    });
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.text)).to.have.property("openapi", "3.1.0");
    expect(Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"))).to.deep.equal(
      [],
    );
    expect(arrived).to.have.length(1);
    const names = Object.keys(arrived[0] ?? {});
    expect(
      names.filter(
        (name) => name.startsWith("x-commerce-") || name.startsWith("x-user-") || name === "authorization",
      ),
    ).to.deep.equal([]);
  });

  it("gives another method the site's 405 before reading a body over 1 MiB, and a preflight too", async () => {
    const refused = {
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: "use GET or HEAD for this path",
    };
    const post = await send(base, "POST", "/openapi.json", json, "x".repeat(2 * 1024 * 1024));
    expect([post.status, post.headers["allow"]], post.text).to.deep.equal([405, "GET, HEAD"]);
    expect(JSON.parse(post.text)).to.deep.equal(refused);
    const preflight = await send(base, "OPTIONS", "/docs", {
      origin: shop,
      "access-control-request-method": "GET",
    });
    expect(preflight.status, preflight.text).to.equal(405);
    expect(JSON.parse(preflight.text)).to.deep.equal(refused);
    expect(preflight.headers["access-control-allow-origin"]).to.equal(undefined);
  });

  it("sends everything under /docs/ and /assets/ to the site, which answers its own 404, and no file beside its own", async () => {
    const noRoute = { status: 404, code: "NOT_FOUND", message: "no route for this path" };
    for (const path of ["/docs/nothing-here.js", "/assets/nothing-here.js"]) {
      arrived.length = 0;
      const unknownFile = await send(base, "GET", path);
      expect(unknownFile.status, path).to.equal(404);
      expect(JSON.parse(unknownFile.text), path).to.deep.equal(noRoute);
      expect(arrived, path).to.have.length(1);
    }
    for (const path of ["/openapi.json/", "/openapi.yaml", "/favicon.ico"]) {
      arrived.length = 0;
      const answer = await send(base, "GET", path);
      expect(answer.status, path).to.equal(404);
      expect(JSON.parse(answer.text), path).to.deep.equal(noRoute);
      expect(arrived, path).to.deep.equal([]);
    }
  });

  it("sends / and the web app's pages to the site, which answers them with the app's index.html and its headers", async () => {
    const index = readPublicSiteFiles().get("/")?.body.toString() ?? "";
    for (const path of ["/", "/products/prd_42", "/admin/orders", "/docsx"]) {
      arrived.length = 0;
      const page = await send(base, "GET", path, { origin: shop });
      expect(page.status, path).to.equal(200);
      expect(page.text, path).to.equal(index);
      expect(
        [
          page.headers["content-type"],
          page.headers["cache-control"],
          page.headers["x-content-type-options"],
          page.headers["referrer-policy"],
        ],
        path,
      ).to.deep.equal(["text/html; charset=utf-8", "no-cache", "nosniff", "no-referrer"]);
      expect(page.headers["content-security-policy"], path).to.match(
        /^default-src 'self'; script-src 'self'; style-src 'self';/,
      );
      expect(page.headers["content-security-policy"], path).to.include("frame-ancestors 'none'");
      expect(
        Object.keys(page.headers).filter((name) => name.startsWith("access-control-")),
        path,
      ).to.deep.equal([]);
      expect(arrived, path).to.have.length(1);
    }
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1] ?? "";
    const file = await send(base, "GET", script);
    expect([file.status, file.headers["cache-control"]]).to.deep.equal([
      200,
      "public, max-age=31536000, immutable",
    ]);
  });

  it("sends a hosted checkout's POST back to the site, which answers it with the 303 to the order's page", async () => {
    const back = await send(
      base,
      "POST",
      "/checkout/return/ord_kT3qL9xVb2Rz8N",
      { "content-type": "application/x-www-form-urlencoded", origin: "http://127.0.0.1:1" },
      "razorpay_payment_id=pay_1&razorpay_order_id=order_1&razorpay_signature=00",
    );
    expect([back.status, back.headers["location"], back.text]).to.deep.equal([
      303,
      "/orders/ord_kT3qL9xVb2Rz8N?payment=returned",
      "",
    ]);
    expect(arrived).to.have.length(1);
    expect(upstream.calls).to.deep.equal([]);
  });

  it("keeps the API's paths the API's: a route reaches the service, an unknown path is the API's 404, not the app", async () => {
    const login = await send(
      base,
      "POST",
      "/api/auth/login",
      json,
      JSON.stringify({ email: "a@example.test", password: "correct horse" }),
    );
    expect(login.status, login.text).to.equal(200);
    expect(upstream.calls.map((call) => call.method)).to.deep.equal(["Login"]);
    const unknown = await send(base, "GET", "/api/nothing-here");
    expect(unknown.status).to.equal(404);
    expect(JSON.parse(unknown.text)).to.deep.equal({
      status: 404,
      code: "NOT_FOUND",
      message: "no route for this path",
    });
    expect(arrived).to.deep.equal([]);
  });
});

describe("Envoy in a kept directory (the topology's)", function () {
  this.timeout(60_000);

  it("starts again where an earlier Envoy left its files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "envoy-kept-"));
    const upstream = await startRecordingUpstream();
    try {
      const options = {
        upstreams: new Map([["auth", [hostPortOf(upstream.url)]]]),
        secrets: { jwtSecret, edgeSecret },
        dir,
      };
      for (let run = 0; run < 2; run++) {
        const envoy = await startEnvoyProcess(options);
        try {
          const healthz = await send(envoy.baseUrl, "GET", "/healthz");
          expect([run, healthz.status]).to.deep.equal([run, 200]);
        } finally {
          await envoy.stop();
        }
      }
    } finally {
      await upstream.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The local edge (ADR 0024), the TypeScript twin of the Envoy configuration:
 *   1. drops any client-sent identity and credential headers, and names the client's address
 *      (`x-commerce-client-address`, the socket's peer) on every call;
 *   2. for non-public methods requires a valid HS512 bearer token and injects
 *      `x-user-email` / `x-user-role` / `x-user-id` from its `sub` / `role` / `uid` claims
 *      (else 401), and on every
 *      call presents its credential for the service called, without which that service ignores
 *      identity headers and which no other service accepts;
 *   3. transcodes REST to the RPC and the response back to JSON (success status, bare arrays);
 *   4. maps RPC errors with the standard table to one JSON error body; 404 for unknown paths,
 *      405 for a known path with another method, 413 above the body limit.
 *   5. lets the browser apps of the allowed origins call it: CORS headers, preflights (cors.ts).
 * It is generic: routes come from the descriptors, so a new annotated RPC needs no change here.
 * Each upstream call carries the request's deadline and is cancelled when the client goes away.
 * With tracing on, each request is a SERVER span (Envoy's part in embedded mode), child of the
 * client's `traceparent`, whose context travels on to the service.
 */
import { toJson, type DescService, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { Access } from "@commerce/runtime/contract";
import {
  userEmailHeader,
  userIdHeader,
  userRoleHeader,
  edgeCredentialHeader,
  peerCredentialHeader,
  canonicalClientAddress,
  clientAddressHeader,
} from "@commerce/runtime/identity";
import { traceIdsOf, type Logger } from "@commerce/runtime/logging";
import { retryAfterHeader } from "@commerce/runtime/errors";
import {
  type DualRequest,
  type DualRequestHandler,
  type DualResponse,
  errorBody,
  noRouteMessage,
  sendError,
} from "@commerce/runtime/server";
import { SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import {
  type ServiceTelemetry,
  bindTraceContext,
  contextFromFields,
  injectIntoRecord,
  traceContextHeaders,
  unbindTraceContext,
} from "@commerce/runtime/telemetry";
import { createCallSignals } from "./call-signal.js";
import { createCors } from "./cors.js";
import type { PublicSite } from "./public-site.js";
import { noCors, type CorsSettings } from "./cors-settings.js";
import { errorBodyFromConnectError } from "./error-response.js";
import { RequestShapeError, transcodeRequest } from "./request-transcoder.js";
import { createRouteTable, type Route, type RouteTable } from "./route-table.js";
import type { TokenVerifier } from "./token-verifier.js";

export interface EdgeOptions {
  readonly services: readonly DescService[];
  /** How to reach the service that implements `service` (in-memory or gRPC over h2c). */
  readonly transportFor: (service: DescService) => Transport;
  readonly verifyToken: TokenVerifier;
  /** The edge's credential for the service that implements `service` (ADR 0105). */
  readonly edgeCredentialFor: (service: DescService) => string;
  readonly maxBodyBytes: number;
  readonly logger: Logger;
  /** Deadline for one upstream call. */
  readonly timeoutMs?: number;
  /** Readiness for `/readyz`: the platform behind the edge can serve. */
  readonly isReady: () => boolean;
  /** The edge's tracer (`commerce-edge`); absent or off: no span. */
  readonly telemetry?: ServiceTelemetry;
  /** Browser apps on other origins allowed to call the API (cors.ts); none by default. */
  readonly cors?: CorsSettings;
  /** What the public address serves besides the API (public-site.ts): the description, /docs. */
  readonly site?: PublicSite;
}

export interface Edge {
  readonly handler: DualRequestHandler;
  readonly routes: RouteTable;
}

/** Headers never forwarded upstream: connection-level ones, and what the edge itself decides. */
const notForwarded = new Set([
  "authorization",
  userEmailHeader,
  userRoleHeader,
  userIdHeader,
  clientAddressHeader,
  edgeCredentialHeader,
  peerCredentialHeader,
  "grpc-timeout",
  "connect-timeout-ms",
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "expect",
  "content-length",
  "content-type",
  "accept-encoding",
  "proxy-authorization",
  "http2-settings",
  // The edge's own span is the parent the service sees (injected below), not the client's.
  ...traceContextHeaders,
]);

class BodyTooLargeError extends Error {}

export function createEdge(options: EdgeOptions): Edge {
  const routes = createRouteTable(options.services);
  const transports = new Map(options.services.map((s) => [s, options.transportFor(s)]));
  const credentials = new Map(options.services.map((s) => [s, options.edgeCredentialFor(s)]));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const callSignals = createCallSignals();
  const cors = createCors(options.cors ?? noCors, routes);

  async function serve(req: DualRequest, res: DualResponse, traced?: RequestSpan): Promise<void> {
    const target = req.url ?? "/";
    const queryAt = target.indexOf("?");
    const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
    if (cors(req, res, pathname)) return;
    if (pathname === "/healthz" || pathname === "/readyz") {
      probe(res, pathname, options.isReady);
      return;
    }
    if (options.site?.(req, res, pathname) === true) return;
    const match = routes.match(req.method ?? "GET", pathname);
    if (match.kind === "not_found") {
      sendError(res, errorBody(404, "NOT_FOUND", noRouteMessage));
      return;
    }
    if (match.kind === "method_not_allowed") {
      res.setHeader("allow", match.allow.join(", "));
      sendError(res, errorBody(405, "METHOD_NOT_ALLOWED", `use ${match.allow.join(" or ")} for this path`));
      return;
    }
    const { route, params } = match;
    if (traced !== undefined) {
      traced.span.updateName(`${route.verb} ${route.template}`);
      traced.span.setAttribute("http.route", route.template);
    }

    const header: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name.startsWith(":") || notForwarded.has(name) || value === undefined) continue;
      header[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    header[edgeCredentialHeader] = credentials.get(route.service) ?? "";
    const clientAddress = canonicalClientAddress(req.socket.remoteAddress);
    if (clientAddress !== undefined) header[clientAddressHeader] = clientAddress;
    if (traced !== undefined) injectIntoRecord(traced.active, header);
    if (route.contract.access !== Access.PUBLIC) {
      const caller = await options.verifyToken(req.headers.authorization);
      if (caller === undefined) {
        res.setHeader("www-authenticate", 'Bearer realm="commerce"');
        {
          sendError(res, errorBody(401, "UNAUTHENTICATED", "a valid bearer token is required"));
          return;
        }
      }
      header[userEmailHeader] = caller.email;
      header[userRoleHeader] = caller.role;
      header[userIdHeader] = String(caller.userId);
    }

    let body: Buffer;
    try {
      body = await readBody(req, options.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        sendError(
          res,
          errorBody(413, "PAYLOAD_TOO_LARGE", `request body exceeds ${options.maxBodyBytes} bytes`),
        );
        return;
      }
      // The request broke off before its end: the client went away, or its body was malformed
      // and the server refused it itself (protocol-refusals.ts). Nobody is left to answer.
      if (req.destroyed) return;
      throw error;
    }

    let input;
    try {
      const contentType = req.headers["content-type"];
      const query = new URLSearchParams(queryAt < 0 ? "" : target.slice(queryAt + 1));
      input = transcodeRequest(route, { params, query, body, contentType });
    } catch (error) {
      if (error instanceof RequestShapeError) {
        sendError(res, errorBody(400, "INVALID_ARGUMENT", error.message));
        return;
      }
      throw error;
    }

    const transport = transports.get(route.service);
    if (transport === undefined) throw new Error(`no transport for ${route.service.typeName}`);
    const call = callSignals(req, res, timeoutMs);
    // A trace its sampler left out gets no span below either: the service takes the edge's
    // context from the call's signal, as is (rpc-server-spans.ts), without reading a header.
    const unsampled = traced !== undefined && !traced.span.isRecording();
    if (unsampled) bindTraceContext(call.signal, traced.active);
    try {
      const response = await transport.unary(route.method, call.signal, timeoutMs, header, input);
      if (call.expired) return;
      sendSuccess(res, route, toJson(route.method.output, response.message, { alwaysEmitImplicit: true }));
    } catch (error) {
      if (call.expired) return;
      const connectError = ConnectError.from(error);
      if (connectError.code === Code.Internal || connectError.code === Code.Unknown) {
        options.logger.error(
          { err: connectError, route: `${route.verb} ${route.template}`, ...traceIdsOf(traced?.active) },
          "upstream failed",
        );
      }
      const retryAfter = connectError.metadata.get(retryAfterHeader);
      if (retryAfter !== null && /^[0-9]{1,6}$/.test(retryAfter)) res.setHeader("retry-after", retryAfter);
      if (!res.destroyed) sendError(res, errorBodyFromConnectError(connectError));
    } finally {
      call.done();
      if (unsampled) unbindTraceContext(call.signal);
    }
  }

  const fail = (res: DualResponse, traced?: RequestSpan) => (error: unknown) => {
    options.logger.error({ err: error, ...traceIdsOf(traced?.active) }, "edge failure");
    if (!res.headersSent) sendError(res, errorBody(500, "INTERNAL", "internal error"));
    else res.destroy();
  };
  const tracer = options.telemetry?.enabled === true ? options.telemetry.tracer : undefined;
  const handler: DualRequestHandler =
    tracer === undefined
      ? (req, res) => {
          serve(req, res).catch(fail(res));
        }
      : (req, res) => {
          // Probes are not requests anyone follows (the kubelet's, every few seconds).
          if (req.url === "/healthz" || req.url === "/readyz") {
            serve(req, res).catch(fail(res));
            return;
          }
          const traced = startRequestSpan(tracer, req, res);
          serve(req, res, traced).catch(fail(res, traced));
        };
  return { handler, routes };
}

/** A request's SERVER span, and the context it is the span of (what the service is sent). */
interface RequestSpan {
  readonly span: Span;
  readonly active: Context;
}

/**
 * The SERVER span of one REST request, per the HTTP conventions: named after the method until
 * the route is known (then `GET /api/products/{product_id}`), ended with the response's status;
 * an error on 5xx only (a 4xx is the client's; a client that went away before the answer leaves
 * no status). No path, query, header or body: they hold ids, tokens and personal data.
 */
function startRequestSpan(tracer: Tracer, req: DualRequest, res: DualResponse): RequestSpan {
  const verb = req.method !== undefined && httpMethods.has(req.method) ? req.method : "_OTHER";
  const { traceparent, tracestate } = req.headers;
  const parent = contextFromFields({
    ...(typeof traceparent === "string" ? { traceparent } : {}),
    ...(typeof tracestate === "string" ? { tracestate } : {}),
  });
  const span = tracer.startSpan(
    verb === "_OTHER" ? "HTTP" : verb,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": verb, "url.scheme": "http" } },
    parent,
  );
  // A span its sampler left out records nothing: nothing to end.
  if (span.isRecording()) {
    res.once("close", () => {
      if (res.headersSent) {
        span.setAttribute("http.response.status_code", res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
  }
  return { span, active: trace.setSpan(parent, span) };
}

const httpMethods = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE"]);

/** Kubernetes probes of the edge itself: `/healthz` (alive) and `/readyz` (can serve). */
function probe(res: DualResponse, path: string, isReady: () => boolean): void {
  const ready = path === "/healthz" || isReady();
  const text = JSON.stringify({ status: path === "/healthz" ? "ok" : ready ? "ready" : "not ready" });
  res.writeHead(ready ? 200 : 503, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function sendSuccess(res: DualResponse, route: Route, json: JsonValue): void {
  const status = route.contract.successStatus;
  if (status === 204) {
    res.writeHead(204);
    res.end();
    return;
  }
  const unwrap = route.contract.unwrap;
  const payload = unwrap === undefined ? json : (unwrapField(route, json as JsonObject, unwrap) ?? []);
  const text = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function unwrapField(route: Route, json: JsonObject, fieldName: string): JsonValue | undefined {
  const field = route.method.output.fields.find((f) => f.name === fieldName);
  return field === undefined ? undefined : json[field.jsonName];
}

const noBody = Buffer.alloc(0);

/**
 * Reads the body up to `limit` bytes; larger bodies fail fast (declared length) or mid-stream.
 * An HTTP/1 request that declares no body (no Content-Length, no Transfer-Encoding) is not
 * read at all: most requests are GETs, and stream iteration is a large part of their cost.
 */
function readBody(req: DualRequest, limit: number): Promise<Buffer> {
  const declared = req.headers["content-length"];
  if (Number(declared ?? "0") > limit) return Promise.reject(new BodyTooLargeError());
  if (
    req.httpVersionMajor === 1 &&
    declared === undefined &&
    req.headers["transfer-encoding"] === undefined
  ) {
    req.resume();
    return Promise.resolve(noBody);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.once("end", () => resolve(chunks.length === 1 ? (chunks[0] ?? noBody) : Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

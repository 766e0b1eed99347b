/**
 * What the HTTP/1 server answers by itself, before any handler runs: a request it cannot parse,
 * a request line and headers over the limit, a request that does not arrive in time, an
 * expectation it cannot meet, a protocol upgrade or a tunnel. Node answers these with an empty
 * body or none (a bare `400 Bad Request`), closes the connection unanswered (CONNECT), or serves
 * what it should refuse (an upgrade, more than 100 header fields); here each carries the one
 * JSON error body (ADR 0006), and Envoy's own replies take the
 * same bodies (envoy/src/local-replies.ts).
 */
import { STATUS_CODES } from "node:http";
import { errorBody, type ErrorBody } from "./error-body.js";

/**
 * The most bytes of request line and headers a request may have: Node's default, made explicit
 * so that Envoy is given the same limit. Both count the URL in it, so a long URL is a 431 too:
 * neither server ever answers 414.
 */
export const maxRequestHeadBytes = 16 * 1024;

/**
 * The most header fields a request may have: Envoy's default, made explicit. Node would read
 * 2,000 and silently drop the rest, so the server refuses more itself.
 */
export const maxRequestHeaderCount = 100;

export const malformedRequest = errorBody(400, "INVALID_ARGUMENT", "malformed HTTP request");

export const requestHeadTooLarge = errorBody(
  431,
  "REQUEST_HEADER_FIELDS_TOO_LARGE",
  `request line and headers exceed ${maxRequestHeadBytes} bytes, or ${maxRequestHeaderCount} header fields`,
);

export const requestTimeout = errorBody(408, "REQUEST_TIMEOUT", "the request did not arrive in time");

export const expectationFailed = errorBody(
  417,
  "EXPECTATION_FAILED",
  "only the expectation 100-continue is supported",
);

/** Neither edge speaks WebSocket or any other protocol a request could switch to. */
export const upgradeRefused = errorBody(403, "PERMISSION_DENIED", "protocol upgrades are not supported");

/** A tunnel (CONNECT): the edges are no proxies. Node would close the connection unanswered. */
export const tunnelRefused = errorBody(405, "METHOD_NOT_ALLOWED", "CONNECT is not supported");

const chunkExtensionsTooLarge = errorBody(413, "PAYLOAD_TOO_LARGE", "chunk extensions are too large");

/** The refusal of a request that Node's parser or its timers gave up on, by the error's code. */
export function refusalOf(code: string | undefined): ErrorBody {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return requestHeadTooLarge;
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return chunkExtensionsTooLarge;
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return requestTimeout;
    default:
      return malformedRequest;
  }
}

/**
 * A whole HTTP/1.1 response carrying `body`, written straight to the connection: after a parse
 * error there is no request, so no response object either. The connection closes after it.
 */
export function refusalResponse(body: ErrorBody): string {
  const text = JSON.stringify(body);
  return [
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? ""}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(text)}`,
    "connection: close",
    "",
    text,
  ].join("\r\n");
}

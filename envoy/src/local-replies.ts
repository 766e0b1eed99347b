/**
 * Envoy's own answers (no route, a refused token, a body over the limit, an upstream that is
 * down or too slow, and requests its HTTP codec refuses: malformed, headers over the limit) in
 * the edge's one JSON error body. Answers of the upstream services are shaped by the REST
 * filter instead; these mappers only see replies Envoy makes itself. Texts come from the local
 * edge's error module and the runtime's protocol refusals, so both edges say the same.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorBodyFromConnectError } from "@commerce/edge/rest-mapping";
import {
  errorBody,
  type ErrorBody,
  malformedRequest,
  noRouteMessage,
  requestHeadTooLarge,
  requestTimeout,
  upgradeRefused,
} from "@commerce/runtime/server";

/** The request body limit of both edges. */
export const maxRequestBytes = 1024 * 1024;

export const unauthenticatedBody = errorBody(401, "UNAUTHENTICATED", "a valid bearer token is required");
export const noRouteBody = errorBody(404, "NOT_FOUND", noRouteMessage);
export const tooLargeBody = errorBody(
  413,
  "PAYLOAD_TOO_LARGE",
  `request body exceeds ${maxRequestBytes} bytes`,
);

const serverFault = (code: Code): ErrorBody => errorBodyFromConnectError(new ConnectError("", code));

export function statusIs(status: number): JsonObject {
  return {
    status_code_filter: {
      comparison: {
        op: "EQ",
        value: { default_value: status, runtime_key: `commerce.local_reply.status_${status}` },
      },
    },
  };
}

/** An access-log filter on a CEL expression over the stream's attributes. */
export function celFilter(expression: string): JsonObject {
  return {
    extension_filter: {
      name: "envoy.access_loggers.extension_filters.cel",
      typed_config: {
        "@type": "type.googleapis.com/envoy.extensions.access_loggers.filters.cel.v3.ExpressionFilter",
        expression,
      },
    },
  };
}

/**
 * `status`, from a request Envoy refused itself before any of our filters could answer it: no
 * route was chosen (its HTTP codec refused the request line or headers, a missing Host, a path
 * it cannot normalize, no route), or its HTTP/1 codec refused the body (response code details
 * `http1.*`). The REST filter answers 400 itself on routed requests, with its own messages,
 * which a mapper on the status alone would overwrite. (The DPE response flag is set only after
 * the reply is built, so a filter on it never matches.)
 */
function refusedByEnvoy(status: number): JsonObject {
  return {
    and_filter: {
      filters: [
        statusIs(status),
        celFilter('!has(xds.route_name) || response.code_details.startsWith("http1.")'),
      ],
    },
  };
}

export function mapper(filter: JsonObject, body: ErrorBody, extra: JsonObject = {}): JsonObject {
  return {
    filter,
    ...extra,
    body_format_override: {
      text_format_source: { inline_string: JSON.stringify(body) },
      content_type: "application/json",
    },
  };
}

/**
 * When a client may try again after Envoy's own 503 (no healthy upstream: a service that is not
 * ready, ADR 0112), as the services' own 503s say it: about the time a service takes to be seen
 * ready again.
 */
const retryAfterUnavailable = {
  header: { key: "retry-after", value: "5" },
  append_action: "ADD_IF_ABSENT",
};

/** Envoy's own replies in the one error body; `first` are mappers that take precedence. */
export function localReplyConfig(first: readonly JsonObject[] = []): JsonObject {
  const unavailable = serverFault(Code.Unavailable);
  return {
    mappers: [
      ...first,
      mapper(refusedByEnvoy(404), noRouteBody),
      mapper(refusedByEnvoy(400), malformedRequest),
      mapper(statusIs(401), unauthenticatedBody, {
        headers_to_add: [
          {
            header: { key: "www-authenticate", value: 'Bearer realm="commerce"' },
            append_action: "OVERWRITE_IF_EXISTS_OR_ADD",
          },
        ],
      }),
      // A protocol upgrade, which no route allows. (An unknown Expect is passed on: the services'
      // server answers it, protocol-refusals.ts.)
      mapper(
        { and_filter: { filters: [statusIs(403), celFilter('response.code_details == "upgrade_failed"')] } },
        upgradeRefused,
      ),
      // A request that stalls (the stream's idle timeout).
      mapper(statusIs(408), requestTimeout),
      mapper(statusIs(413), tooLargeBody),
      mapper(statusIs(426), errorBody(426, "UPGRADE_REQUIRED", "HTTP/1.1 or HTTP/2 is required")),
      mapper(statusIs(431), requestHeadTooLarge),
      // A transfer coding Envoy does not know.
      mapper(statusIs(501), serverFault(Code.Unimplemented)),
      mapper(statusIs(503), unavailable, { headers_to_add: [retryAfterUnavailable] }),
      // 502 is an upstream that answered garbage or hung up: to the client, unavailable.
      mapper(statusIs(502), unavailable, {
        status_code: unavailable.status,
        headers_to_add: [retryAfterUnavailable],
      }),
      mapper(statusIs(504), serverFault(Code.DeadlineExceeded)),
      mapper(statusIs(500), serverFault(Code.Internal)),
    ],
  };
}

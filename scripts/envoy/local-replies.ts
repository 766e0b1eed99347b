/**
 * Envoy's own answers (no route, a refused token, a body over the limit, an upstream that is
 * down or too slow) in the edge's one JSON error body. Answers of the upstream services are
 * shaped by the REST filter instead; these mappers only see replies Envoy makes itself.
 * Server-side texts come from the local edge's error module, so both edges say the same.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorBody, errorBodyFromConnectError, type ErrorBody } from "@commerce/edge/error-response.js";

/** The request body limit of both edges. */
export const maxRequestBytes = 1024 * 1024;

export const unauthenticatedBody = errorBody(401, "UNAUTHENTICATED", "a valid bearer token is required");
export const noRouteBody = errorBody(404, "NOT_FOUND", "no route for this path");
export const tooLargeBody = errorBody(
  413,
  "PAYLOAD_TOO_LARGE",
  `request body exceeds ${maxRequestBytes} bytes`,
);

const serverFault = (code: Code): ErrorBody => errorBodyFromConnectError(new ConnectError("", code));

function statusIs(status: number): JsonObject {
  return {
    status_code_filter: {
      comparison: {
        op: "EQ",
        value: { default_value: status, runtime_key: `commerce.local_reply.status_${status}` },
      },
    },
  };
}

function mapper(filter: JsonObject, body: ErrorBody, extra: JsonObject = {}): JsonObject {
  return {
    filter,
    ...extra,
    body_format_override: {
      text_format_source: { inline_string: JSON.stringify(body) },
      content_type: "application/json",
    },
  };
}

export function localReplyConfig(): JsonObject {
  const unavailable = serverFault(Code.Unavailable);
  return {
    mappers: [
      mapper({ response_flag_filter: { flags: ["NR"] } }, noRouteBody),
      mapper(statusIs(401), unauthenticatedBody, {
        headers_to_add: [
          {
            header: { key: "www-authenticate", value: 'Bearer realm="commerce"' },
            append_action: "OVERWRITE_IF_EXISTS_OR_ADD",
          },
        ],
      }),
      mapper(statusIs(413), tooLargeBody),
      mapper(statusIs(503), unavailable),
      // 502 is an upstream that answered garbage or hung up: to the client, unavailable.
      mapper(statusIs(502), unavailable, { status_code: unavailable.status }),
      mapper(statusIs(504), serverFault(Code.DeadlineExceeded)),
      mapper(statusIs(500), serverFault(Code.Internal)),
      mapper(
        { response_flag_filter: { flags: ["DPE"] } },
        errorBody(400, "INVALID_ARGUMENT", "malformed HTTP request"),
      ),
    ],
  };
}

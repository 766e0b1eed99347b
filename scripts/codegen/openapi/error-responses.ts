/**
 * The error answers of the API's description: the one JSON error body of both edges
 * (services/runtime/src/server/error-body.ts) as a schema, one shared response per status, and
 * the statuses each operation can answer. Those come from what every route shares (input,
 * access, body size, faults) and from the method's own refusals written in its contract
 * (`error_statuses` in proto/commerce/options/v1/options.proto).
 */
import { Access } from "@commerce/runtime/contract";
import type { Route } from "@commerce/edge/rest-mapping";
import type { JsonSchema } from "./json-schema.js";

interface ErrorStatus {
  /** The response component's name. */
  readonly name: string;
  readonly description: string;
  /** The codes the body can carry with this status (the edges' gRPC → HTTP table). */
  readonly codes: readonly string[];
  readonly example: string;
  readonly headers?: JsonSchema;
}

const retryAfter = {
  "Retry-After": {
    description: "Seconds to wait before trying again, when the server knows.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
};

const statuses: Readonly<Record<number, ErrorStatus>> = {
  400: {
    name: "BadRequest",
    description:
      "The input breaks a rule: a field's type or bounds, an unknown field or query parameter, malformed JSON, a number not in plain decimal, or a rule of the operation itself.",
    codes: ["INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE"],
    example: "fullName: value length must be at least 1 characters",
  },
  401: {
    name: "Unauthenticated",
    description:
      "No valid bearer token (HS512, not expired), or credentials or a signature that do not verify.",
    codes: ["UNAUTHENTICATED"],
    example: "a valid bearer token is required",
    headers: {
      "WWW-Authenticate": {
        description: "The scheme to authenticate with.",
        schema: { type: "string", examples: ['Bearer realm="commerce"'] },
      },
    },
  },
  403: {
    name: "PermissionDenied",
    description: "The caller's role may not do this, or the resource belongs to someone else.",
    codes: ["PERMISSION_DENIED"],
    example: "this order belongs to another customer",
  },
  404: {
    name: "NotFound",
    description: "What the request names does not exist.",
    codes: ["NOT_FOUND"],
    example: "order not found",
  },
  409: {
    name: "Conflict",
    description:
      "The request conflicts with the current state: a duplicate, or a move the state does not allow.",
    codes: ["ALREADY_EXISTS", "ABORTED"],
    example: "invalid status transition: CANCELLED to CONFIRMED",
  },
  413: {
    name: "PayloadTooLarge",
    description: "The request body is larger than 1 MiB.",
    codes: ["PAYLOAD_TOO_LARGE"],
    example: "request body exceeds 1048576 bytes",
  },
  429: {
    name: "TooManyRequests",
    description: "Too many attempts: wait as Retry-After says.",
    codes: ["RESOURCE_EXHAUSTED"],
    example: "too many failed logins; retry in 900 s",
    headers: retryAfter,
  },
  500: {
    name: "InternalError",
    description: "A fault of the server. The message is fixed; the cause stays in the server's log.",
    codes: ["INTERNAL", "UNKNOWN", "DATA_LOSS"],
    example: "internal error",
  },
  503: {
    name: "Unavailable",
    description: "A service or one of its dependencies is unavailable for now: retry later.",
    codes: ["UNAVAILABLE"],
    example: "service temporarily unavailable, retry later",
    headers: retryAfter,
  },
  504: {
    name: "DeadlineExceeded",
    description: "The service did not answer in time.",
    codes: ["DEADLINE_EXCEEDED"],
    example: "the service did not answer in time",
  },
};

/** The one error body of both edges. */
export const errorBodySchema: JsonSchema = {
  type: "object",
  description: "Every error answer of the API, from either edge.",
  properties: {
    status: { type: "integer", description: "The HTTP status, repeated.", examples: [404] },
    code: { type: "string", description: "The gRPC status name.", examples: ["NOT_FOUND"] },
    message: { type: "string", description: "What went wrong, for people.", examples: ["order not found"] },
  },
  required: ["status", "code", "message"],
};

/** The statuses an operation can answer with an error body, ascending. */
export function errorStatusesOf(route: Route, hasBody: boolean): number[] {
  const found = new Set<number>([400, 500, 503, 504, ...route.contract.errorStatuses]);
  if (route.contract.access !== Access.PUBLIC) found.add(401);
  if (route.contract.access === Access.ADMIN) found.add(403);
  if (hasBody) found.add(413);
  for (const status of found) {
    if (statuses[status] === undefined)
      throw new Error(`${route.verb} ${route.template}: error status ${status} is not described`);
  }
  return [...found].sort((a, b) => a - b);
}

/** `{ $ref }` to the shared response of `status`. */
export function errorResponseRef(status: number): JsonSchema {
  return { $ref: `#/components/responses/${statuses[status]?.name ?? String(status)}` };
}

/** The shared responses of the statuses used. */
export function errorResponses(used: ReadonlySet<number>): Record<string, JsonSchema> {
  return Object.fromEntries(
    [...used]
      .sort((a, b) => a - b)
      .map((status) => {
        const error = statuses[status];
        if (error === undefined) throw new Error(`error status ${status} is not described`);
        return [
          error.name,
          {
            description: error.description,
            ...(error.headers === undefined ? {} : { headers: error.headers }),
            content: {
              "application/json": {
                schema: {
                  allOf: [{ $ref: "#/components/schemas/Error" }],
                  properties: { status: { const: status }, code: { enum: error.codes } },
                },
                example: { status, code: error.codes[0], message: error.example },
              },
            },
          },
        ];
      }),
  );
}

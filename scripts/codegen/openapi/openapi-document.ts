/**
 * The OpenAPI 3.1 document of the REST API, generated from the same route table both edges
 * serve (services/edge/src/route-table.ts, from the descriptors and the contract options), so
 * it describes exactly what they route: per operation its path and query parameters, body,
 * success status and body as served (bare arrays unwrapped, 204 without a body), the rules of
 * every field, its security, every error status it can answer with the one error body, examples
 * and links to the operations that take the ids it answers (ADR 0014).
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { Access } from "@commerce/runtime/contract";
import {
  parsePathTemplate,
  type Route,
  maxJsonDepth,
  bodyBinding,
  type BodyBinding,
} from "@commerce/edge/rest-mapping";
import { maxRequestHeadBytes, maxRequestHeaderCount } from "@commerce/runtime/server";
import { errorBodySchema, errorResponseRef, errorResponses, errorStatusesOf } from "./error-responses.js";
import { fieldContract } from "./field-contract.js";
import { withoutKeywords, type JsonSchema } from "./json-schema.js";
import { createMessageSchemas, type MessageSchemas } from "./message-schemas.js";
import { idSources, itemIdSources, linksOf, type IdSource, type IdTarget } from "./operation-links.js";
import type { ProtoComments } from "./proto-comments.js";

export interface DocumentInfo {
  /** The platform's version (package.json). */
  readonly version: string;
}

const bearerAuth = "bearerAuth";

/** `ListMyOrders` → `listMyOrders`. */
function operationIdOf(route: Route): string {
  return route.method.name.charAt(0).toLowerCase() + route.method.name.slice(1);
}

/** `ListMyOrders` → `List my orders`; `SandboxCheckoutService` → `Sandbox checkout`. */
function words(name: string): string {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function tagOf(route: Route): string {
  return words(route.service.name.replace(/Service$/, ""));
}

function fieldNamed(message: DescMessage, name: string): DescField {
  const field = message.fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`${message.typeName} has no field ${name}`);
  return field;
}

/** The route's path variables, in order, with their fields. */
function pathFields(route: Route): DescField[] {
  return parsePathTemplate(route.template).flatMap((segment) =>
    segment.kind === "variable" ? [fieldNamed(route.method.input, segment.fieldPath)] : [],
  );
}

/** `/api/orders/{order_id}` → `/api/orders/{orderId}`: parameters under their JSON names. */
function openApiPath(route: Route): string {
  return route.template.replace(/\{([\w.]+)(?:=[^}]*)?\}/g, (_, name: string) => {
    return `{${fieldNamed(route.method.input, name).jsonName}}`;
  });
}

const accessWords: Readonly<Record<number, string>> = {
  [Access.PUBLIC]: "Public: no token needed.",
  [Access.AUTHENTICATED]: "Any signed-in caller (a bearer token).",
  [Access.ADMIN]: "Admins only (a bearer token whose role is ADMIN).",
};

export function buildOpenApiDocument(
  routes: readonly Route[],
  comments: ProtoComments,
  info: DocumentInfo,
): JsonSchema {
  const schemas = createMessageSchemas(
    comments,
    routes.flatMap((route) => [route.method.input, route.method.output]),
  );
  const usedErrors = new Set<number>();
  const operationIds = new Set<string>();

  // Which operations take which ids (for the links), gathered first.
  const targets: IdTarget[] = routes.flatMap((route) => {
    const operationId = operationIdOf(route);
    const byPath = pathFields(route).flatMap((field): IdTarget[] => {
      const kind = fieldContract(field).linksAs;
      return kind === undefined ? [] : [{ kind, operationId, in: "path", name: field.jsonName }];
    });
    const byBody =
      route.body === "*"
        ? route.method.input.fields.flatMap((field): IdTarget[] => {
            const kind = fieldContract(field).linksAs;
            return kind === undefined || pathFields(route).includes(field)
              ? []
              : [{ kind, operationId, in: "body", name: field.jsonName }];
          })
        : [];
    return [...byPath, ...byBody];
  });

  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const operationId = operationIdOf(route);
    if (operationIds.has(operationId)) throw new Error(`two operations are named ${operationId}`);
    operationIds.add(operationId);

    const inPath = pathFields(route);
    const body = bodyBinding(route);
    const parameters: JsonSchema[] = [
      ...inPath.map((field) => parameter(schemas, field, "path")),
      ...queryFields(route, inPath).map((field) => parameter(schemas, field, "query")),
    ];
    const signatureHeader = route.contract.signatureHeader;
    if (signatureHeader !== undefined) {
      parameters.push({
        name: signatureHeader,
        in: "header",
        required: true,
        description: "Hex HMAC-SHA256 of the raw request body with the webhook secret.",
        schema: { type: "string", pattern: "^[0-9a-f]{64}$" },
      });
    }

    const statuses = errorStatusesOf(route, body.kind !== "none");
    for (const status of statuses) usedErrors.add(status);
    const comment = comments.of(route.method);
    const operation: JsonSchema = {
      operationId,
      tags: [tagOf(route)],
      summary: words(route.method.name),
      description: [comment, accessWords[route.contract.access]]
        .filter((text) => text !== undefined)
        .join("\n\n"),
      ...(parameters.length === 0 ? {} : { parameters }),
      ...requestBodyOf(route, body, schemas, comments),
      responses: {
        [String(route.contract.successStatus)]: successResponse(route, schemas, targets),
        ...Object.fromEntries(statuses.map((status) => [String(status), errorResponseRef(status)])),
      },
      security: route.contract.access === Access.PUBLIC ? [] : [{ [bearerAuth]: [] }],
    };
    const path = openApiPath(route);
    paths[path] = { ...paths[path], [route.verb.toLowerCase()]: operation };
  }

  const tags = [...new Map(routes.map((route) => [tagOf(route), route.service])).entries()].map(
    ([name, service]) => ({ name, description: comments.of(service) }),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Commerce platform API",
      version: info.version,
      summary: "Accounts, catalog, orders, payments, notifications and analytics of a shop.",
      description: apiDescription,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: "/", description: "The platform this document was served from" }],
    tags,
    paths,
    components: {
      schemas: { Error: errorBodySchema, ...schemas.components },
      responses: errorResponses(usedErrors),
      securitySchemes: {
        [bearerAuth]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "The token POST /api/auth/login answers: HS512, with an expiry.",
        },
      },
    },
    security: [{ [bearerAuth]: [] }],
  };
}

/** Fields a GET or DELETE (or any route not binding the whole body) takes from the query. */
function queryFields(route: Route, inPath: readonly DescField[]): DescField[] {
  if (route.body === "*") return [];
  return route.method.input.fields.filter((field) => !inPath.includes(field) && field.name !== route.body);
}

function parameter(schemas: MessageSchemas, field: DescField, where: "path" | "query"): JsonSchema {
  const { description, examples, ...schema } = schemas.field(field, "request");
  // The edges refuse an empty query value: a parameter is absent or has a value.
  const typed =
    where === "query" && schema["type"] === "string" && schema["minLength"] === undefined
      ? { ...schema, minLength: 1 }
      : schema;
  return {
    name: field.jsonName,
    in: where,
    required: where === "path",
    ...(typeof description === "string" ? { description } : {}),
    schema: typed,
    ...(Array.isArray(examples) ? { example: examples[0] } : {}),
  };
}

function requestBodyOf(
  route: Route,
  body: BodyBinding,
  schemas: MessageSchemas,
  comments: ProtoComments,
): JsonSchema {
  const input = route.method.input;
  const inPath = new Set(pathFields(route).map((field) => field.name));
  let schema: JsonSchema;
  let example: unknown;
  switch (body.kind) {
    case "none":
      return {};
    case "raw":
      // The raw bytes reach the service (their signature is over them): what they hold is the
      // gateway's JSON, described in words.
      return {
        requestBody: {
          required: true,
          description: comments.of(input),
          content: { "application/json": { schema: { type: "object" } } },
        },
      };
    case "object":
      if (route.body === "*") {
        schema = inPath.size === 0 ? schemas.ref(input, "request") : schemas.without(input, inPath);
        example = schemas.example(input, "request", inPath);
      } else {
        const field = fieldNamed(input, route.body ?? "");
        schema = schemas.field(field, "request");
        example = schemas.fieldExample(field, "request");
      }
      break;
    case "array": {
      const field = fieldNamed(input, route.body ?? "");
      schema = withoutKeywords(schemas.field(field, "request"), "examples");
      example = schemas.fieldExample(field, "request");
      break;
    }
    case "value":
      throw new Error(`${route.verb} ${route.template}: a scalar body is not described`);
  }
  return {
    requestBody: {
      required: true,
      description: `JSON, nested at most ${maxJsonDepth} levels.`,
      content: { "application/json": { schema, example } },
    },
  };
}

function successResponse(route: Route, schemas: MessageSchemas, targets: readonly IdTarget[]): JsonSchema {
  const status = route.contract.successStatus;
  if (status === 204) return { description: "Done; no content." };
  const output = route.method.output;
  const unwrap = route.contract.unwrap;
  let schema: JsonSchema;
  let example: unknown;
  let sources: IdSource[];
  if (unwrap === undefined) {
    schema = schemas.ref(output, "response");
    example = schemas.example(output, "response");
    sources = idSources(output, "");
  } else {
    // A bare array: the list field of the response message is the whole body.
    const field = fieldNamed(output, unwrap);
    schema = withoutKeywords(schemas.field(field, "response"), "description", "examples");
    example = schemas.fieldExample(field, "response");
    sources = field.fieldKind === "list" && field.listKind === "message" ? itemIdSources(field.message) : [];
  }
  const links = linksOf(operationIdOf(route), sources, targets);
  return {
    description: status === 201 ? "Created." : "OK.",
    content: { "application/json": { schema, example } },
    ...(Object.keys(links).length === 0 ? {} : { links }),
  };
}

const apiDescription = [
  "The REST API of the commerce platform, generated from its contract (proto/): the same routes, rules and statuses both of its edges serve.",
  "**Authentication.** `POST /api/auth/login` answers a token; send it as `Authorization: Bearer <token>` on every operation that is not public.",
  '**Errors.** Every error answer has the same JSON body: `{ "status": 404, "code": "NOT_FOUND", "message": "order not found" }`. Server faults carry fixed messages.',
  `**Input.** JSON bodies of at most 1 MiB (413), nested at most ${maxJsonDepth} levels; a request line and headers of at most ${maxRequestHeadBytes / 1024} KiB and ${maxRequestHeaderCount} fields (431). ` +
    'Numbers are JSON numbers in plain decimal (`16`, `19.99`; not `"16"` or `1e1`); ids in paths and numbers in queries are plain decimal digits. A query parameter is absent or has a value. Unknown fields and query parameters are refused.',
  "**Time and money.** Times are UTC wall clock `YYYY-MM-DDTHH:MM:SS`, days `YYYY-MM-DD`; amounts are numbers in major currency units with at most two decimals.",
].join("\n\n");

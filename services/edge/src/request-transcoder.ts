/**
 * REST → RPC: builds the request message from path variables, query parameters and the body,
 * as the route's google.api.http rule binds them. Everything is assembled as protobuf JSON and
 * parsed once with `fromJson`, so the message obeys the same JSON rules everywhere (unknown
 * fields and wrongly typed values — `{"email": {"$ne": null}}` — are refused).
 */
import {
  fromJson,
  ScalarType,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { bodyNumberProblem, expectedOfField, type Expected } from "./body-numbers.js";
import { nestsTooDeep, tooDeepMessage } from "./json-depth.js";
import { isPlainDecimal, numberKindOfField, parameterNotation } from "./plain-decimal.js";
import type { Route } from "./route-table.js";

export class RequestShapeError extends Error {
  override readonly name = "RequestShapeError";
}

export interface RestRequest {
  readonly params: ReadonlyMap<string, string>;
  readonly query: URLSearchParams;
  /** Raw body bytes; empty when none was sent. */
  readonly body: Buffer;
  readonly contentType: string | undefined;
}

const httpBodyType = "google.api.HttpBody";

export function transcodeRequest(route: Route, request: RestRequest): Message {
  const input = route.method.input;
  const json: JsonObject = route.body === "*" ? parseJsonObject(request.body, request.contentType) : {};
  if (route.body === "*") {
    checkNumbers(request.body, { kind: "message", message: input });
  } else if (route.body !== undefined) {
    const field = fieldByName(input, route.body);
    if (field === undefined) throw new Error(`${route.template}: body field "${route.body}" does not exist`);
    if (field.fieldKind === "message" && field.message.typeName === httpBodyType) {
      json[field.jsonName] = {
        contentType: request.contentType ?? "",
        data: request.body.toString("base64"),
      };
    } else {
      json[field.jsonName] = parseJson(request.body, request.contentType);
      checkNumbers(request.body, expectedOfField(field));
    }
  }
  for (const [path, value] of request.params) assign(input, json, path, value, "path");
  for (const name of new Set(request.query.keys())) {
    // With body "*" every field comes from the body, so any query parameter is unknown input
    // (as Envoy's transcoder sees it too).
    if (route.body === "*") throw new RequestShapeError(`unknown query parameter "${name}"`);
    assign(input, json, name, request.query.getAll(name), "query");
  }
  try {
    return fromJson(input, json);
  } catch (error) {
    throw new RequestShapeError(`invalid request: ${error instanceof Error ? error.message : "malformed"}`);
  }
}

/** Numbers in the body only in plain decimal notation (ADR 0008). */
function checkNumbers(body: Buffer, expected: Expected): void {
  const problem = bodyNumberProblem(body, expected);
  if (problem !== undefined) throw new RequestShapeError(problem);
}

function parseJson(body: Buffer, contentType: string | undefined): JsonValue {
  if (body.length === 0) throw new RequestShapeError("a JSON request body is required");
  if (contentType !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new RequestShapeError(`content type must be application/json, got "${contentType}"`);
  }
  const text = body.toString("utf8");
  // Before anything that recurses per level of the text (ADR 0007).
  if (nestsTooDeep(text)) throw new RequestShapeError(tooDeepMessage);
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new RequestShapeError("request body is not valid JSON");
  }
}

function parseJsonObject(body: Buffer, contentType: string | undefined): JsonObject {
  const value = parseJson(body, contentType);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RequestShapeError("request body must be a JSON object");
  }
  return value;
}

/** Finds a field by its proto name or its JSON name (clients may use either in a query). */
function fieldByName(message: DescMessage, name: string): DescField | undefined {
  return message.fields.find((f) => f.name === name || f.jsonName === name);
}

/** Sets a (possibly nested, dotted) field from path or query text, typed by the schema. */
function assign(
  message: DescMessage,
  json: JsonObject,
  path: string,
  value: string | readonly string[],
  source: "path" | "query",
): void {
  const names = path.split(".");
  let schema = message;
  let target = json;
  for (const [index, name] of names.entries()) {
    const field = fieldByName(schema, name);
    if (field === undefined) throw new RequestShapeError(`unknown ${source} parameter "${path}"`);
    if (index < names.length - 1) {
      if (field.fieldKind !== "message") throw new RequestShapeError(`unknown ${source} parameter "${path}"`);
      const nested = target[field.jsonName];
      const next: JsonObject =
        nested !== null && typeof nested === "object" && !Array.isArray(nested) ? nested : {};
      target[field.jsonName] = next;
      target = next;
      schema = field.message;
      continue;
    }
    const values = typeof value === "string" ? [value] : value;
    if (field.fieldKind === "list") {
      target[field.jsonName] = values.map((v) => scalarJson(field, v, path));
    } else if (field.fieldKind === "scalar" || field.fieldKind === "enum") {
      if (values.length !== 1) throw new RequestShapeError(`${source} parameter "${path}" must appear once`);
      target[field.jsonName] = scalarJson(field, values[0] ?? "", path);
    } else {
      throw new RequestShapeError(`${source} parameter "${path}" cannot be set from text`);
    }
  }
}

/**
 * Text → the JSON value protobuf JSON expects: numbers stay strings, once their notation is
 * plain decimal (protobuf JSON would read `0x10` or `1e0`); booleans may not. An empty value
 * is refused whatever the type (ADR 0007): a field without presence
 * would read it as absent, and `?unread=` or `?to=` would be answered as if never sent.
 */
function scalarJson(field: DescField, text: string, path: string): JsonValue {
  const number = numberKindOfField(field);
  if (number !== undefined) {
    if (!isPlainDecimal(text, number)) throw new RequestShapeError(parameterNotation(path, number));
    return text;
  }
  const scalar =
    field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar")
      ? field.scalar
      : undefined;
  if (scalar !== ScalarType.BOOL) {
    if (text === "") throw new RequestShapeError(`parameter "${path}" must not be empty`);
    return text;
  }
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new RequestShapeError(`parameter "${path}" must be true or false`);
}

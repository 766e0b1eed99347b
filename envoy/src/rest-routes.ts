/**
 * The REST routes of the Envoy edge, derived from the same route table as the local edge
 * (services/edge/src/route-table.ts), so both route exactly the annotated RPCs:
 *   - per path template and method, a route to the service's cluster, with the facts the REST
 *     filter needs in its metadata and the JWT requirement of the method's access option;
 *   - per path template, a 405 answer with `Allow` for every other method;
 *   - last, a 404 answer for any other path under /api/;
 * ordered as the local edge matches (a literal segment before a variable), so that
 * `/api/orders/my` is ListMyOrders and not GetOrder. Nothing else under /api/ reaches a
 * service: internal RPCs have no HTTP rule, so no path reaches them.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { Access } from "@commerce/runtime/contract";
import { clientAddressHeader } from "@commerce/runtime/identity";
import {
  parsePathTemplate,
  type TemplateSegment,
  type HttpVerb,
  type Route,
  bodyBinding,
  numberKindOfField,
} from "@commerce/edge/rest-mapping";
import { errorBody, type ErrorBody } from "@commerce/runtime/server";
import { corsRefusalConfig } from "./cors.js";
import { noRouteBody } from "./local-replies.js";

/** The route metadata namespace: the REST filter's name (Lua reads metadata under its name). */
export const restFilterName = "commerce.rest";
/** The REST filter's script without a request side (lua-source.ts). */
export const shapedScript = "shaped";
/** The filter that spells the bearer scheme for jwt_authn: of use only where a token is verified. */
export const bearerFilterName = "commerce.bearer";
/** The JWT requirement protected routes name (jwt_authn's `requirement_map`). */
export const bearerRequirement = "bearer";
/** Deadline of one call; the local edge's too. */
export const routeTimeoutSeconds = 30;

const jwtFilterName = "envoy.filters.http.jwt_authn";
const jwtPerRouteType = "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig";
const bufferFilterName = "envoy.filters.http.buffer";
const bufferPerRouteType = "type.googleapis.com/envoy.extensions.filters.http.buffer.v3.BufferPerRoute";
const luaPerRouteType = "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute";

const bearerOff: JsonObject = { [bearerFilterName]: { "@type": luaPerRouteType, disabled: true } };

/** Escapes a literal for RE2. */
function regexLiteral(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}

/** A template as a path regex: one segment per variable, `**` the rest, one optional "/". */
export function templateRegex(template: string): string {
  const segments = parsePathTemplate(template).map((segment) => {
    if (segment.kind === "literal") return regexLiteral(segment.value);
    return segment.rest ? "[^/]+(?:/[^/]+)*" : "[^/]+";
  });
  return `/${segments.join("/")}/?`;
}

/** Orders templates as the local edge's matcher tries them: literal, then variable, then rest. */
function compareTemplates(a: readonly TemplateSegment[], b: readonly TemplateSegment[]): number {
  const rank = (segment: TemplateSegment): number => (segment.kind === "literal" ? 0 : segment.rest ? 2 : 1);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) break;
    if (rank(x) !== rank(y)) return rank(x) - rank(y);
    if (x.kind === "literal" && y.kind === "literal" && x.value !== y.value)
      return x.value < y.value ? -1 : 1;
  }
  return a.length - b.length;
}

function jwtPerRoute(config: JsonObject): JsonObject {
  return { [jwtFilterName]: { "@type": jwtPerRouteType, ...config } };
}

/** What the REST filter reads for a route (see the legend of rest-filter.lua). */
function restMetadata(route: Route): JsonObject {
  const body = bodyBinding(route);
  const metadata: Record<string, JsonValue> = {
    status: route.contract.successStatus,
    identity: route.contract.access !== Access.PUBLIC,
    input: route.method.input.typeName,
    // With body "*" every field comes from the body, so any query parameter is unknown.
    query: route.body !== "*",
  };
  const unwrap = route.contract.unwrap;
  if (unwrap !== undefined) {
    const field = route.method.output.fields.find((f) => f.name === unwrap);
    if (field === undefined) throw new Error(`${route.template}: unwrap field "${unwrap}" does not exist`);
    metadata["unwrap"] = field.jsonName;
  }
  // Path variables bound to numeric fields are checked for plain decimal notation.
  if (route.template.includes("{")) metadata["path"] = route.template;
  if (body.kind !== "none") metadata["body"] = body.kind;
  if (body.kind === "object" || body.kind === "array") metadata["body_type"] = body.type;
  return metadata;
}

/** Whether a path variable of `route` is bound to a number, whose notation the filter checks. */
function hasNumberVariable(route: Route): boolean {
  return parsePathTemplate(route.template).some((segment) => {
    if (segment.kind !== "variable") return false;
    const field = route.method.input.fields.find((f) => f.name === segment.fieldPath);
    return field === undefined || numberKindOfField(field) !== undefined;
  });
}

/**
 * Whether the REST filter has nothing to check on a request of `route` that has no query
 * string: a public method (no token to judge) without a body or a numeric path variable.
 */
function uncheckedWithoutQuery(route: Route): boolean {
  return (
    route.contract.access === Access.PUBLIC && bodyBinding(route).kind === "none" && !hasNumberVariable(route)
  );
}

/** A `:path` without a query string (the header holds it; the route's path match does not). */
const noQuery: JsonObject = { name: ":path", string_match: { safe_regex: { regex: "[^?]*" } } };

/**
 * The route of one bound method. A public one runs no bearer filter (its token is ignored);
 * one whose requests may have nothing to check gets a route before it for exactly those (no
 * query string), on which the REST filter runs only its response side.
 */
function boundRoutes(route: Route, regex: string, cluster: string): JsonObject[] {
  const method = { name: ":method", string_match: { exact: route.verb } };
  const bound = boundRoute(route, { safe_regex: { regex }, headers: [method] }, cluster);
  if (!uncheckedWithoutQuery(route)) return [bound];
  const shaped = boundRoute(route, { safe_regex: { regex }, headers: [method, noQuery] }, cluster);
  return [
    {
      ...shaped,
      name: `${route.verb} ${route.template} (no query)`,
      typed_per_filter_config: {
        ...bearerOff,
        [restFilterName]: { "@type": luaPerRouteType, name: shapedScript },
      },
    },
    bound,
  ];
}

function boundRoute(route: Route, match: JsonObject, cluster: string): JsonObject {
  const identity = route.contract.access !== Access.PUBLIC;
  return {
    name: `${route.verb} ${route.template}`,
    match,
    route: {
      cluster,
      timeout: `${routeTimeoutSeconds}s`,
    },
    // Services see the edge's deadline as a gRPC deadline, as from the local edge, and the
    // client's address as the connection's peer (use_remote_address is on), whatever the client
    // sent (header_mutation removed its copy first).
    request_headers_to_add: [
      {
        header: { key: "grpc-timeout", value: `${routeTimeoutSeconds}S` },
        append_action: "OVERWRITE_IF_EXISTS_OR_ADD",
      },
      {
        header: { key: clientAddressHeader, value: "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%" },
        append_action: "OVERWRITE_IF_EXISTS_OR_ADD",
      },
    ],
    metadata: { filter_metadata: { [restFilterName]: restMetadata(route) } },
    // Public methods are not verified at all: no identity, and a bad token is ignored.
    typed_per_filter_config: identity ? jwtPerRoute({ requirement_name: bearerRequirement }) : bearerOff,
  };
}

/**
 * A refusal under /api/, answered by the REST filter from the route's metadata (`refusal`:
 * status, error body, `Allow`) rather than as a direct response, so that Envoy's CORS filter,
 * which ignores direct responses, acts on it (cors.ts): a preflight is an OPTIONS request, and
 * an allowed origin reads the error body. The cluster is only named: the REST filter answers
 * before the router. The body is not buffered, so a large one is refused as the local edge
 * refuses it, before it is read.
 */
function refusal(
  name: string,
  match: JsonObject,
  cluster: string,
  body: ErrorBody,
  allow: readonly HttpVerb[],
): JsonObject {
  return {
    name,
    match,
    route: { cluster, timeout: `${routeTimeoutSeconds}s` },
    metadata: {
      filter_metadata: {
        [restFilterName]: {
          refusal: {
            status: body.status,
            body: JSON.stringify(body),
            ...(allow.length === 0 ? {} : { allow: allow.join(", ") }),
          },
        },
      },
    },
    typed_per_filter_config: {
      ...bearerOff,
      [bufferFilterName]: { "@type": bufferPerRouteType, disabled: true },
      ...corsRefusalConfig(allow),
    },
  };
}

/** A path template, the regex its routes match, and the methods it binds. */
export interface BoundTemplate {
  readonly template: string;
  readonly regex: string;
  readonly routes: readonly Route[];
  readonly allow: readonly HttpVerb[];
}

/** Every template of `routes`, most specific first: the order routes are matched in. */
export function templatesInMatchOrder(routes: readonly Route[]): BoundTemplate[] {
  const byTemplate = new Map<string, Route[]>();
  for (const route of routes)
    byTemplate.set(route.template, [...(byTemplate.get(route.template) ?? []), route]);
  return [...byTemplate.entries()]
    .map(([template, bound]) => ({ template, segments: parsePathTemplate(template), bound }))
    .sort((a, b) => compareTemplates(a.segments, b.segments))
    .map(({ template, bound }) => ({
      template,
      regex: templateRegex(template),
      routes: bound,
      allow: bound.map((route) => route.verb),
    }));
}

/** What a method a path does not bind is told: the methods it does. */
export function methodNotAllowedBody(allow: readonly HttpVerb[]): ErrorBody {
  return errorBody(405, "METHOD_NOT_ALLOWED", `use ${allow.join(" or ")} for this path`);
}

/**
 * The routes of `routes` (each bound to the cluster `clusterOf` names), most specific template
 * first, each template's methods followed by its 405, and the 404 of every other path under
 * /api/ last.
 */
export function restRoutes(routes: readonly Route[], clusterOf: (route: Route) => string): JsonObject[] {
  const [first] = routes;
  if (first === undefined) return [];
  const perTemplate = templatesInMatchOrder(routes).flatMap(({ template, regex, routes: bound, allow }) => [
    ...bound.flatMap((route) => boundRoutes(route, regex, clusterOf(route))),
    refusal(
      `* ${template}`,
      { safe_regex: { regex } },
      clusterOf(bound[0] ?? first),
      methodNotAllowedBody(allow),
      allow,
    ),
  ]);
  return [...perTemplate, refusal("* /api/", { prefix: "/api/" }, clusterOf(first), noRouteBody, [])];
}

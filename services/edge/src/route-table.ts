/**
 * REST routes derived from the `google.api.http` rules of the services' descriptors: nothing is
 * listed by hand, so an annotated RPC is routed as soon as it exists.
 *
 * Matching walks the path one segment at a time and prefers a literal segment over a variable
 * (so `GET /api/orders/my` is ListMyOrders, not GetOrder with id "my"), backtracking when the
 * literal branch leads nowhere.
 */
import { getOption, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { methodContract, type MethodContract } from "@commerce/runtime/contract";
import { http } from "@commerce/runtime/gen/google/api/annotations_pb.js";
import type { HttpRule } from "@commerce/runtime/gen/google/api/http_pb.js";
import { parsePathTemplate, type TemplateSegment } from "./path-template.js";

export type HttpVerb = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

export interface Route {
  readonly verb: HttpVerb;
  readonly template: string;
  readonly service: DescService;
  readonly method: DescMethod & { readonly methodKind: "unary" };
  /** "*" (whole body), a field name, or undefined (no body). */
  readonly body: string | undefined;
  readonly contract: MethodContract;
}

export type RouteMatch =
  | { readonly kind: "found"; readonly route: Route; readonly params: ReadonlyMap<string, string> }
  | { readonly kind: "method_not_allowed"; readonly allow: readonly HttpVerb[] }
  | { readonly kind: "not_found" };

interface Node {
  readonly literals: Map<string, Node>;
  variable: { readonly fieldPath: string; readonly rest: boolean; readonly node: Node } | undefined;
  readonly routes: Map<HttpVerb, Route>;
}

const newNode = (): Node => ({ literals: new Map(), variable: undefined, routes: new Map() });

export interface RouteTable {
  readonly routes: readonly Route[];
  match(verb: string, path: string): RouteMatch;
}

export function createRouteTable(services: readonly DescService[]): RouteTable {
  const root = newNode();
  const routes: Route[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      const rule = getOption(method, http);
      for (const binding of [rule, ...rule.additionalBindings]) {
        const pattern = verbAndTemplate(binding);
        if (pattern === undefined) continue;
        if (method.methodKind !== "unary")
          throw new Error(`${method.name}: only unary methods can have HTTP rules`);
        const route: Route = {
          verb: pattern.verb,
          template: pattern.template,
          service,
          method: method as Route["method"],
          body: binding.body === "" ? undefined : binding.body,
          contract: methodContract(method),
        };
        insert(root, parsePathTemplate(pattern.template), route);
        routes.push(route);
      }
    }
  }
  return {
    routes,
    match(verb, path) {
      const segments = splitPath(path);
      if (segments === undefined) return { kind: "not_found" };
      const found = walk(root, segments, 0, new Map());
      if (found === undefined) return { kind: "not_found" };
      const route = found.node.routes.get(verb as HttpVerb);
      if (route === undefined) return { kind: "method_not_allowed", allow: [...found.node.routes.keys()] };
      return { kind: "found", route, params: found.params };
    },
  };
}

function verbAndTemplate(rule: HttpRule): { verb: HttpVerb; template: string } | undefined {
  switch (rule.pattern.case) {
    case "get":
      return { verb: "GET", template: rule.pattern.value };
    case "post":
      return { verb: "POST", template: rule.pattern.value };
    case "put":
      return { verb: "PUT", template: rule.pattern.value };
    case "delete":
      return { verb: "DELETE", template: rule.pattern.value };
    case "patch":
      return { verb: "PATCH", template: rule.pattern.value };
    case "custom":
      throw new Error(`custom HTTP verbs are not supported (${rule.pattern.value.kind})`);
    default:
      return undefined;
  }
}

function insert(root: Node, segments: readonly TemplateSegment[], route: Route): void {
  let node = root;
  for (const segment of segments) {
    if (segment.kind === "literal") {
      let next = node.literals.get(segment.value);
      if (next === undefined) node.literals.set(segment.value, (next = newNode()));
      node = next;
    } else {
      if (node.variable === undefined)
        node.variable = { fieldPath: segment.fieldPath, rest: segment.rest, node: newNode() };
      else if (node.variable.fieldPath !== segment.fieldPath || node.variable.rest !== segment.rest) {
        throw new Error(`conflicting path variables at ${route.template}`);
      }
      node = node.variable.node;
    }
  }
  if (node.routes.has(route.verb)) throw new Error(`two methods bound to ${route.verb} ${route.template}`);
  node.routes.set(route.verb, route);
}

/** Splits and percent-decodes a path; undefined for malformed encodings or empty segments. */
function splitPath(path: string): string[] | undefined {
  if (!path.startsWith("/")) return undefined;
  const raw = path.slice(1).split("/");
  if (raw.length > 1 && raw[raw.length - 1] === "") raw.pop(); // tolerate one trailing slash
  try {
    return raw.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function walk(
  node: Node,
  segments: readonly string[],
  index: number,
  params: Map<string, string>,
): { node: Node; params: Map<string, string> } | undefined {
  if (index === segments.length) return node.routes.size > 0 ? { node, params } : undefined;
  const segment = segments[index] ?? "";
  const literal = node.literals.get(segment);
  if (literal !== undefined) {
    const found = walk(literal, segments, index + 1, params);
    if (found !== undefined) return found;
  }
  const variable = node.variable;
  if (variable === undefined || segment === "") return undefined;
  if (variable.rest) {
    const rest = new Map(params).set(variable.fieldPath, segments.slice(index).join("/"));
    return variable.node.routes.size > 0 ? { node: variable.node, params: rest } : undefined;
  }
  return walk(variable.node, segments, index + 1, new Map(params).set(variable.fieldPath, segment));
}

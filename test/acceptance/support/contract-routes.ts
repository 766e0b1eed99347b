/**
 * The REST routes the contract declares, read from the `google.api.http` rules of the generated
 * descriptors (proto/), not from either edge: a suite that must hold every route of a kind to a
 * rule covers a route added tomorrow without an edit, and a route an edge forgot still counts.
 */
import { getOption } from "@bufbuild/protobuf";
import { publicServices, Access, methodContract } from "@commerce/runtime/contract";
import { http } from "@commerce/runtime/gen/google/api/annotations_pb.js";

export interface ContractRoute {
  readonly verb: string;
  /** The path template, e.g. `/api/products/{product_id}`. */
  readonly template: string;
  /** The method's access rule: who may call it. */
  readonly access: "public" | "authenticated" | "admin";
  /** How the body reaches the service: none, JSON (decoded by the edge) or raw bytes (HttpBody). */
  readonly body: "none" | "json" | "raw";
}

const accessNames: Partial<Record<Access, ContractRoute["access"]>> = {
  [Access.PUBLIC]: "public",
  [Access.AUTHENTICATED]: "authenticated",
  [Access.ADMIN]: "admin",
};

export function contractRoutes(): ContractRoute[] {
  const routes: ContractRoute[] = [];
  for (const service of publicServices) {
    for (const method of service.methods) {
      const rule = getOption(method, http);
      for (const binding of [rule, ...rule.additionalBindings]) {
        const { case: verb, value } = binding.pattern;
        if (verb === undefined || verb === "custom") continue;
        const access = accessNames[methodContract(method).access];
        if (access === undefined) continue;
        const field = method.input.fields.find((f) => f.name === binding.body);
        const raw = field?.message?.typeName === "google.api.HttpBody";
        routes.push({
          verb: verb.toUpperCase(),
          template: value,
          access,
          body: binding.body === "" ? "none" : raw ? "raw" : "json",
        });
      }
    }
  }
  return routes;
}

/** The template with each `{variable}` replaced by its value in `values`; throws for a missing one. */
export function pathOf(route: ContractRoute, values: Readonly<Record<string, string>>): string {
  return route.template.replace(/\{([^}=]+)(?:=[^}]*)?\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${route.verb} ${route.template}`);
    return encodeURIComponent(value);
  });
}

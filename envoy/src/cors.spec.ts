import { join } from "node:path";
import { expect } from "chai";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  buildDescriptorSet,
  loadContract,
  type Contract,
} from "../../scripts/codegen/contract-descriptors.js";
import type { EnvoyCors } from "./cors.js";
import { renderEnvoyConfig, renderEnvoyYaml } from "./envoy-config.js";
import { defaultEnvoyOptions } from "./envoy-options.js";
import { validateEnvoyConfigs } from "./testing/envoy-validate.js";

const repoRoot = join(import.meta.dirname, "..", "..");

interface Route {
  readonly name: string;
  readonly route?: { readonly cluster: string };
  readonly direct_response?: JsonObject;
  readonly typed_per_filter_config?: Readonly<Record<string, JsonObject>>;
}

interface Manager {
  readonly http_filters: readonly { readonly name: string; readonly typed_config: JsonObject }[];
  readonly route_config: {
    readonly virtual_hosts: readonly {
      readonly typed_per_filter_config?: Readonly<Record<string, JsonObject>>;
      readonly routes: readonly Route[];
    }[];
  };
}

function managerOf(config: JsonObject): Manager {
  const json = JSON.parse(JSON.stringify(config)) as {
    static_resources: { listeners: { filter_chains: { filters: { typed_config: Manager }[] }[] }[] };
  };
  const manager = json.static_resources.listeners[0]?.filter_chains[0]?.filters[0]?.typed_config;
  if (manager === undefined) throw new Error("no HTTP connection manager");
  return manager;
}

function virtualHostOf(config: JsonObject): Manager["route_config"]["virtual_hosts"][number] {
  const host = managerOf(config).route_config.virtual_hosts[0];
  if (host === undefined) throw new Error("no virtual host");
  return host;
}

const cors = "envoy.filters.http.cors";
const shop: EnvoyCors = {
  allowedOrigins: ["https://shop.example.test", "http://localhost:5173"],
  allowedHeaders: ["x-request-id"],
  maxAgeSeconds: 900,
};

describe("Envoy's CORS (cors.ts)", () => {
  let contract: Contract;

  before(async () => {
    contract = loadContract(await buildDescriptorSet(repoRoot));
  });

  it("puts the policy on the virtual host: exact origins, the request headers, max age, exposed headers, no credentials", () => {
    const host = virtualHostOf(renderEnvoyConfig(contract, { ...defaultEnvoyOptions, cors: shop }));
    expect(host.typed_per_filter_config?.[cors]).to.deep.equal({
      "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy",
      allow_origin_string_match: [{ exact: "https://shop.example.test" }, { exact: "http://localhost:5173" }],
      allow_headers: "authorization, content-type, x-request-id",
      expose_headers: "allow, retry-after, www-authenticate",
      max_age: "900",
      forward_not_matching_preflights: true,
    });
  });

  it('allows no origin by default, and any with "*" (the filter\'s own wildcard)', () => {
    const policyOf = (options: typeof defaultEnvoyOptions): JsonObject | undefined =>
      virtualHostOf(renderEnvoyConfig(contract, options)).typed_per_filter_config?.[cors];
    expect(policyOf(defaultEnvoyOptions)?.["allow_origin_string_match"]).to.deep.equal([]);
    expect(policyOf(defaultEnvoyOptions)?.["allow_headers"]).to.equal("authorization, content-type");
    expect(
      policyOf({ ...defaultEnvoyOptions, cors: { ...shop, allowedOrigins: ["*"] } })?.[
        "allow_origin_string_match"
      ],
    ).to.deep.equal([{ exact: "*" }]);
  });

  it("comes before anything that could refuse a preflight, behind the 204 of the preflight filter", () => {
    const names = managerOf(renderEnvoyConfig(contract, defaultEnvoyOptions)).http_filters.map((f) => f.name);
    expect(names.slice(0, 6)).to.deep.equal([
      "envoy.filters.http.header_mutation",
      "commerce.bearer",
      "commerce.preflight",
      cors,
      "envoy.filters.http.jwt_authn",
      "envoy.filters.http.buffer",
    ]);
    expect(names.indexOf(cors)).to.be.lessThan(names.indexOf("commerce.rest"));
  });

  it("lets a preflight reach a route to a cluster on every path under /api/: the 405 of each template with its methods, the 404 of the rest", () => {
    const routes = virtualHostOf(renderEnvoyConfig(contract, defaultEnvoyOptions)).routes;
    const refusals = routes.filter((route) => route.name.startsWith("* "));
    expect(refusals.length).to.be.greaterThan(15);
    for (const route of refusals) {
      expect(route.direct_response, route.name).to.equal(undefined);
      expect(route.route?.cluster, route.name).to.be.a("string");
      expect(route.typed_per_filter_config?.["commerce.preflight"], route.name).to.deep.equal({
        "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute",
        name: "preflight",
      });
    }
    expect(
      routes.find((route) => route.name === "* /api/orders")?.typed_per_filter_config?.[cors],
    ).to.deep.equal({
      "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy",
      allow_methods: "POST, GET",
    });
    // The last of the API's routes (the web app's pages follow it: site-routes.ts).
    const lastOfApi = routes.filter((route) => !route.name.startsWith("site ")).at(-1);
    expect(lastOfApi?.name).to.equal("* /api/");
    expect(lastOfApi?.typed_per_filter_config).to.not.have.property(cors);
    // Bound routes match their own method, never OPTIONS: the virtual host's policy is theirs.
    // (The public site's routes turn CORS off: site-routes.ts.)
    const bound = routes.filter(
      (r) => !r.name.startsWith("* ") && !r.name.startsWith("site ") && r.route !== undefined,
    );
    for (const route of bound) {
      expect(route.typed_per_filter_config ?? {}, route.name).to.not.have.any.keys(
        cors,
        "commerce.preflight",
      );
    }
  });

  it("leaves placeholders the Helm chart fills in where it is given strings", () => {
    const yaml = renderEnvoyYaml(contract, {
      ...defaultEnvoyOptions,
      cors: { allowedOrigins: "__ORIGINS__", allowedHeaders: "__HEADERS__", maxAgeSeconds: "__MAX_AGE__" },
    });
    expect(yaml).to.include("allow_origin_string_match: __ORIGINS__\n");
    expect(yaml).to.include("allow_headers: authorization, content-type__HEADERS__\n");
    expect(yaml).to.include("max_age: __MAX_AGE__\n");
  });

  it("is a configuration Envoy accepts, with origins and with none (envoy --mode validate)", async function () {
    this.timeout(120_000);
    const given = [shop, { ...shop, allowedOrigins: ["*"] }, undefined];
    const verdicts = await validateEnvoyConfigs(
      contract,
      given.map((cors) => ({ ...defaultEnvoyOptions, cors })),
    );
    for (const { stdout, accepted } of verdicts) expect(stdout).to.include(accepted);
    expect(verdicts).to.have.length(3);
  });
});

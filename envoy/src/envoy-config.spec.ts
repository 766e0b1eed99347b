import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { JsonObject } from "@bufbuild/protobuf";
import { internalServices, publicServices, Access, methodContract } from "@commerce/runtime/contract";
import { edgeCredential } from "@commerce/runtime/identity";
import { createRouteTable } from "@commerce/edge/rest-mapping";
import { readPublicSiteFiles } from "@commerce/edge";
import {
  buildDescriptorSet,
  deploymentOf,
  loadContract,
  type Contract,
} from "../../scripts/codegen/contract-descriptors.js";
import { renderEnvoyConfig, renderEnvoyYaml } from "./envoy-config.js";
import {
  defaultDeployments,
  defaultEnvoyOptions,
  EnvoyOptionsError,
  routedServices,
  siteDeployment,
  type EnvoyOptions,
} from "./envoy-options.js";
import { writeEnvoySecrets } from "./envoy-secrets.js";
import { validateEnvoyConfigs } from "./testing/envoy-validate.js";
import { otlpExportOf } from "./tracing.js";

const repoRoot = join(import.meta.dirname, "..", "..");

/** The parts of a rendered route the assertions read. */
interface RenderedRoute {
  readonly name: string;
  readonly match: {
    readonly safe_regex?: { readonly regex: string };
    readonly path?: string;
    readonly prefix?: string;
  };
  readonly route?: { readonly cluster: string; readonly timeout: string };
  readonly direct_response?: { readonly status: number; readonly body: { readonly inline_string: string } };
  readonly response_headers_to_add?: readonly {
    readonly header: { readonly key: string; readonly value: string };
  }[];
  readonly request_headers_to_add?: readonly {
    readonly header: { readonly key: string; readonly value: string };
    readonly append_action: string;
  }[];
  readonly metadata?: { readonly filter_metadata: { readonly "commerce.rest": Record<string, unknown> } };
  readonly typed_per_filter_config?: Record<
    string,
    { readonly requirement_name?: string; readonly "@type"?: string; readonly disabled?: boolean }
  >;
}

interface RenderedConfig {
  readonly static_resources: {
    readonly listeners: readonly {
      readonly filter_chains: readonly {
        readonly filters: readonly {
          readonly typed_config: {
            readonly route_config: {
              readonly virtual_hosts: readonly { readonly routes: readonly RenderedRoute[] }[];
            };
            readonly http_filters: readonly { readonly name: string; readonly typed_config: JsonObject }[];
            readonly tracing?: JsonObject;
          };
        }[];
      }[];
    }[];
    readonly clusters: readonly { readonly name: string }[];
  };
}

function manager(
  config: JsonObject,
): RenderedConfig["static_resources"]["listeners"][number]["filter_chains"][number]["filters"][number]["typed_config"] {
  const manager = (config as unknown as RenderedConfig).static_resources.listeners[0]?.filter_chains[0]
    ?.filters[0];
  if (manager === undefined) throw new Error("no HTTP connection manager");
  return manager.typed_config;
}

function routesOf(config: JsonObject): readonly RenderedRoute[] {
  return manager(config).route_config.virtual_hosts[0]?.routes ?? [];
}

function routeNamed(config: JsonObject, name: string): RenderedRoute {
  const route = routesOf(config).find((r) => r.name === name);
  if (route === undefined) throw new Error(`no route "${name}"`);
  return route;
}

function withUpstreams(names: readonly string[]): EnvoyOptions {
  return {
    ...defaultEnvoyOptions,
    upstreams: new Map(names.map((name) => [name, [{ host: name, port: 9090 }]])),
  };
}

describe("renderEnvoyConfig", () => {
  let contract: Contract;

  before(async () => {
    contract = loadContract(await buildDescriptorSet(repoRoot));
  });

  it("binds every annotated method of the deployed services: verb, template, cluster, access, status", () => {
    const config = renderEnvoyConfig(contract, defaultEnvoyOptions);
    const deployed = publicServices.filter((s) => defaultDeployments.includes(deploymentOf(s)));
    const expected = createRouteTable(deployed).routes;
    expect(expected.length).to.be.greaterThan(20);
    // Refusal routes (`* <template>`, `* /api/`) name a cluster too, for the CORS filter; the
    // site's routes (`site …`) go to the web deployable.
    const bound = routesOf(config).filter(
      (r) =>
        r.route !== undefined &&
        !r.name.startsWith("* ") &&
        !r.name.startsWith("site ") &&
        !r.name.endsWith(" (no query)"),
    );
    expect(bound.map((r) => r.name).sort()).to.deep.equal(
      expected.map((r) => `${r.verb} ${r.template}`).sort(),
    );
    for (const route of expected) {
      const rendered = routeNamed(config, `${route.verb} ${route.template}`);
      const contractOf = methodContract(route.method);
      expect(rendered.route, rendered.name).to.deep.equal({
        cluster: deploymentOf(route.service),
        timeout: "30s",
      });
      expect(rendered.metadata?.filter_metadata["commerce.rest"], rendered.name).to.include({
        status: contractOf.successStatus,
        identity: contractOf.access !== Access.PUBLIC,
        input: route.method.input.typeName,
      });
      const requirement =
        rendered.typed_per_filter_config?.["envoy.filters.http.jwt_authn"]?.requirement_name;
      expect(requirement, rendered.name).to.equal(contractOf.access === Access.PUBLIC ? undefined : "bearer");
    }
  });

  it("runs the bearer filter only where a token is verified, and the REST filter's request side only where a request may have something to check", () => {
    const config = renderEnvoyConfig(contract, defaultEnvoyOptions);
    const routes = routesOf(config);
    const luaPerRoute = "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute";
    for (const route of routes.filter((r) => r.metadata !== undefined)) {
      const identity = route.metadata?.filter_metadata["commerce.rest"]["identity"] === true;
      expect(route.typed_per_filter_config?.["commerce.bearer"], route.name).to.deep.equal(
        identity ? undefined : { "@type": luaPerRoute, disabled: true },
      );
    }
    // Public, no body, no numeric path variable: without a query string nothing is checked.
    const shaped = routes.filter((r) => r.name.endsWith(" (no query)"));
    expect(shaped.map((r) => r.name)).to.deep.equal([
      "GET /api/categories (no query)",
      "GET /api/products (no query)",
      "GET /api/products/{product_id} (no query)",
      "GET /api/products/{product_id}/recommendations (no query)",
    ]);
    for (const route of shaped) {
      const next = routes[routes.indexOf(route) + 1];
      expect(next?.name, route.name).to.equal(route.name.replace(" (no query)", ""));
      expect(route.match, route.name).to.deep.equal({
        ...next?.match,
        headers: [
          ...((next?.match as { headers?: unknown[] }).headers ?? []),
          { name: ":path", string_match: { safe_regex: { regex: "[^?]*" } } },
        ],
      });
      expect(route.typed_per_filter_config?.["commerce.rest"], route.name).to.deep.equal({
        "@type": luaPerRoute,
        name: "shaped",
      });
      expect(next?.typed_per_filter_config?.["commerce.rest"], next?.name).to.equal(undefined);
    }
    const rest = manager(config).http_filters.find((f) => f.name === "commerce.rest")?.typed_config as {
      default_source_code: { inline_string: string };
      source_codes: Record<string, { inline_string: string }>;
    };
    expect(rest.source_codes["shaped"]?.inline_string).to.equal(
      `${rest.default_source_code.inline_string}\n-- Nothing to check on this route's requests.\nenvoy_on_request = nil\n`,
    );
  });

  it("gives success statuses and bare arrays from the method options", () => {
    const config = renderEnvoyConfig(contract, defaultEnvoyOptions);
    expect(
      routeNamed(config, "POST /api/auth/register").metadata?.filter_metadata["commerce.rest"],
    ).to.include({
      status: 201,
      body: "object",
      body_type: "commerce.auth.v1.RegisterRequest",
      query: false,
    });
    expect(
      routeNamed(config, "DELETE /api/users/{user_id}").metadata?.filter_metadata["commerce.rest"],
    ).to.include({
      status: 204,
      identity: true,
    });
    expect(routeNamed(config, "GET /api/categories").metadata?.filter_metadata["commerce.rest"]).to.include({
      unwrap: "categories",
      identity: false,
    });
    expect(
      routeNamed(config, "POST /api/products/bulk").metadata?.filter_metadata["commerce.rest"],
    ).to.include({
      body: "array",
      body_type: "commerce.product.v1.ProductDraft",
      query: true,
    });
  });

  it("routes no internal service, and transcodes only the deployed public services", () => {
    const yaml = renderEnvoyYaml(contract, defaultEnvoyOptions);
    for (const service of internalServices) expect(yaml).not.to.include(service.typeName);
    const transcoder = manager(renderEnvoyConfig(contract, defaultEnvoyOptions)).http_filters.find(
      (f) => f.name === "envoy.filters.http.grpc_json_transcoder",
    );
    expect(transcoder?.typed_config["services"]).to.deep.equal([
      "commerce.auth.v1.AuthService",
      "commerce.user.v1.UserService",
      "commerce.product.v1.ProductService",
      "commerce.order.v1.OrderService",
      "commerce.notification.v1.NotificationService",
      "commerce.payment.v1.PaymentService",
      "commerce.payment.v1.SandboxCheckoutService",
      "commerce.analytics.v1.AnalyticsService",
      "commerce.recommendation.v1.RecommendationService",
    ]);
    // The API's: the site's app pages have a regex of their own (the site's test below).
    const api = routesOf(renderEnvoyConfig(contract, defaultEnvoyOptions)).filter(
      (r) => !r.name.startsWith("site "),
    );
    const regexes = api.flatMap((r) => (r.match.safe_regex === undefined ? [] : [r.match.safe_regex.regex]));
    for (const regex of regexes) expect(regex).to.match(/^\/api\//);
  });

  it("routes and connects only the services it is given", () => {
    const config = renderEnvoyConfig(contract, withUpstreams(["auth"]));
    expect((config as unknown as RenderedConfig).static_resources.clusters.map((c) => c.name)).to.deep.equal([
      "auth",
    ]);
    const names = routesOf(config).map((r) => r.name);
    expect(names).to.deep.equal([
      "/healthz",
      "/readyz",
      "POST /api/auth/login",
      "* /api/auth/login",
      "POST /api/auth/register",
      "* /api/auth/register",
      "* /api/",
    ]);
  });

  it("sends the public site's paths to the web deployable, after the probes and before the API, and the app's pages after the API, with every filter of the API off", () => {
    const config = renderEnvoyConfig(contract, defaultEnvoyOptions);
    const routes = routesOf(config);
    const site = routes.filter((r) => r.name.startsWith("site "));
    expect(routes.slice(0, 7).map((r) => r.name)).to.deep.equal([
      "/healthz",
      "/readyz",
      "site /openapi.json",
      "site /docs",
      "site /docs/*",
      "site /assets/*",
      "site /checkout/return/*",
    ]);
    expect(routes.at(-2)?.name).to.equal("* /api/");
    expect(routes.at(-1)?.name).to.equal("site app pages");
    expect(site.map((r) => r.match)).to.deep.equal([
      { path: "/openapi.json" },
      { path: "/docs" },
      { prefix: "/docs/" },
      { prefix: "/assets/" },
      { prefix: "/checkout/return/" },
      { safe_regex: { regex: "/[^.]*" } },
    ]);
    const off = { "@type": "type.googleapis.com/envoy.config.route.v3.FilterConfig", disabled: true };
    const filters = manager(config).http_filters.map((f) => f.name);
    for (const route of site) {
      // Each names a filter of the chain: a renamed filter would otherwise stay on, silently.
      expect(filters, route.name).to.include.members(Object.keys(route.typed_per_filter_config ?? {}));
      expect(route.route, route.name).to.deep.equal({ cluster: siteDeployment, timeout: "30s" });
      expect(route.metadata, route.name).to.equal(undefined);
      expect(route.typed_per_filter_config, route.name).to.deep.equal({
        "envoy.filters.http.cors": off,
        "envoy.filters.http.jwt_authn": off,
        "envoy.filters.http.buffer": off,
        "commerce.rest": off,
        "envoy.filters.http.grpc_json_transcoder": off,
      });
    }
    // The route Envoy takes for a path: the first that matches (a regex matches the whole path).
    const takes = (path: string) =>
      routes.find(
        (r) =>
          r.match.path === path ||
          (r.match.prefix !== undefined && path.startsWith(r.match.prefix)) ||
          (r.match.safe_regex !== undefined && new RegExp(`^(?:${r.match.safe_regex.regex})$`).test(path)),
      )?.name;
    // Every file the site serves reaches it, and so does each page of the app.
    for (const path of readPublicSiteFiles().keys()) expect(takes(path), path).to.match(/^site /);
    for (const path of ["/", "/products/prd_42", "/admin/orders", "/docsx"])
      expect(takes(path), path).to.equal("site app pages");
    // The API's paths stay the API's; a file the site does not have, or a gRPC method, has no route.
    expect(takes("/api/products")).to.match(/^GET \/api\/products\b/);
    expect(takes("/api/nothing-here")).to.equal("* /api/");
    for (const path of ["/openapi.json/", "/favicon.ico", "/commerce.user.v1.UserService/GetMe"])
      expect(takes(path), path).to.equal(undefined);
    expect((config as unknown as RenderedConfig).static_resources.clusters.map((c) => c.name)).to.include(
      siteDeployment,
    );
  });

  it("binds the payment callback to the raw body when payment is deployed", () => {
    const config = renderEnvoyConfig(contract, withUpstreams(["payment"]));
    const callback = routeNamed(config, "POST /api/payments/callback");
    expect(callback.route?.cluster).to.equal("payment");
    expect(callback.metadata?.filter_metadata["commerce.rest"]).to.include({ body: "raw", identity: false });
    // Public: no token is required (and the bearer filter, which serves jwt_authn, is off).
    expect(callback.typed_per_filter_config?.["envoy.filters.http.jwt_authn"]).to.equal(undefined);
  });

  it("tries a literal segment before a variable, as the local edge matches", () => {
    const names = routesOf(renderEnvoyConfig(contract, defaultEnvoyOptions)).map((r) => r.name);
    expect(names.indexOf("GET /api/orders/my")).to.be.lessThan(names.indexOf("GET /api/orders/{order_id}"));
    expect(names.indexOf("GET /api/users/me")).to.be.lessThan(names.indexOf("DELETE /api/users/{user_id}"));
    expect(names.indexOf("GET /api/notifications/all")).to.be.lessThan(
      names.indexOf("PUT /api/notifications/{notification_id}/read"),
    );
  });

  it("answers other methods of a known path with 405, Allow and the error body, and unknown paths under /api/ with 404, through the REST filter", () => {
    const config = renderEnvoyConfig(contract, defaultEnvoyOptions);
    const names = routesOf(config).map((r) => r.name);
    const addresses = routeNamed(config, "* /api/users/addresses/{address_id}");
    expect(names.indexOf("* /api/users/addresses/{address_id}")).to.equal(
      names.indexOf("DELETE /api/users/addresses/{address_id}") + 1,
    );
    expect(addresses.match.safe_regex?.regex).to.equal("/api/users/addresses/[^/]+/?");
    expect(addresses.route?.cluster).to.equal("user");
    expect(addresses.direct_response).to.equal(undefined);
    const refusal = addresses.metadata?.filter_metadata["commerce.rest"]["refusal"] as Record<
      string,
      unknown
    >;
    expect(refusal).to.include({ status: 405, allow: "PUT, DELETE" });
    expect(JSON.parse(String(refusal["body"]))).to.deep.equal({
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: "use PUT or DELETE for this path",
    });
    // The last of the API's routes (the web app's pages come after it: the site's test above).
    const unknown = routesOf(config)
      .filter((r) => !r.name.startsWith("site "))
      .at(-1);
    expect(unknown?.name).to.equal("* /api/");
    expect(unknown?.match).to.deep.equal({ prefix: "/api/" });
    expect(unknown?.metadata?.filter_metadata["commerce.rest"]).to.deep.equal({
      refusal: {
        status: 404,
        body: JSON.stringify({ status: 404, code: "NOT_FOUND", message: "no route for this path" }),
      },
    });
    // A large body gets the refusal, not a 413: the local edge refuses before reading it.
    for (const route of [addresses, unknown]) {
      expect(route?.typed_per_filter_config?.["envoy.filters.http.buffer"]).to.deep.equal({
        "@type": "type.googleapis.com/envoy.extensions.filters.http.buffer.v3.BufferPerRoute",
        disabled: true,
      });
    }
  });

  it("first drops what only the edge may set (identity, client address, credential and x-envoy-* headers) and says every answer varies with Origin", () => {
    const filters = manager(renderEnvoyConfig(contract, defaultEnvoyOptions)).http_filters;
    expect(filters.map((f) => f.name)).to.deep.equal([
      "envoy.filters.http.header_mutation",
      "commerce.bearer",
      "commerce.preflight",
      "envoy.filters.http.cors",
      "envoy.filters.http.jwt_authn",
      "envoy.filters.http.buffer",
      "commerce.rest",
      "envoy.filters.http.grpc_json_transcoder",
      "envoy.filters.http.router",
    ]);
    expect(filters[0]?.typed_config["mutations"]).to.deep.equal({
      request_mutations: [
        { remove: "x-user-email" },
        { remove: "x-user-role" },
        { remove: "x-user-id" },
        { remove: "x-commerce-client-address" },
        { remove: "x-commerce-edge-auth" },
        { remove: "x-commerce-peer-auth" },
        { remove_on_match: { key_matcher: { prefix: "x-envoy-" } } },
      ],
      response_mutations: [
        { append: { header: { key: "vary", value: "Origin" }, append_action: "APPEND_IF_EXISTS_OR_ADD" } },
      ],
    });
  });

  it("names the client's address from the downstream connection on every route to a service", () => {
    const bound = routesOf(renderEnvoyConfig(contract, defaultEnvoyOptions)).filter(
      (route) => route.metadata?.filter_metadata["commerce.rest"]["input"] !== undefined,
    );
    expect(bound).to.have.length.greaterThan(30);
    for (const route of bound) {
      expect(route.request_headers_to_add, route.name).to.deep.include({
        header: { key: "x-commerce-client-address", value: "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%" },
        append_action: "OVERWRITE_IF_EXISTS_OR_ADD",
      });
    }
  });

  it("names secret files and holds no secret", async () => {
    const dir = await mkdtemp(join(tmpdir(), "envoy-secrets-"));
    try {
      const secrets = { jwtSecret: "j".repeat(64), edgeSecret: "edge-secret-value" };
      const files = await writeEnvoySecrets(dir, secrets, routedServices);
      const yaml = renderEnvoyYaml(contract, { ...defaultEnvoyOptions, ...files });
      expect(yaml).to.include(files.jwksPath).and.include(files.edgeCredentialsDir);
      expect(yaml).not.to.include(secrets.edgeSecret);
      expect(yaml).not.to.include(Buffer.from(secrets.jwtSecret).toString("base64url"));
      expect(JSON.parse(await readFile(files.jwksPath, "utf8"))).to.deep.equal({
        keys: [{ kty: "oct", alg: "HS512", k: Buffer.from(secrets.jwtSecret).toString("base64url") }],
      });
      // One credential per routed service, each derived for it alone; never the edge secret.
      expect((await readdir(files.edgeCredentialsDir)).sort()).to.deep.equal([...routedServices].sort());
      for (const service of routedServices) {
        const credential = await readFile(join(files.edgeCredentialsDir, service), "utf8");
        expect(credential, service).to.equal(edgeCredential(secrets.edgeSecret, service));
        expect(yaml).not.to.include(credential);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sends each service the edge's credential for it alone, from its cluster, and the public site none", () => {
    interface Cluster {
      readonly name: string;
      readonly typed_extension_protocol_options?: Record<
        string,
        { readonly http_filters?: readonly JsonObject[] }
      >;
    }
    const config = renderEnvoyConfig(contract, defaultEnvoyOptions) as unknown as {
      static_resources: { secrets: JsonObject[]; clusters: Cluster[] };
    };
    const filtersOf = (cluster: Cluster) =>
      cluster.typed_extension_protocol_options?.["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
        ?.http_filters;
    const { secrets, clusters } = config.static_resources;
    expect(secrets).to.deep.equal(
      routedServices.map((service) => ({
        name: `edge-credential-${service}`,
        generic_secret: { secret: { filename: `/etc/envoy/secrets/edge-credentials/${service}` } },
      })),
    );
    for (const service of routedServices) {
      const cluster = clusters.find((c) => c.name === service);
      expect(filtersOf(cluster ?? { name: service }), service).to.deep.equal([
        {
          name: "envoy.filters.http.credential_injector",
          typed_config: {
            "@type":
              "type.googleapis.com/envoy.extensions.filters.http.credential_injector.v3.CredentialInjector",
            overwrite: true,
            credential: {
              name: "envoy.http.injected_credentials.generic",
              typed_config: {
                "@type": "type.googleapis.com/envoy.extensions.http.injected_credentials.generic.v3.Generic",
                credential: { name: `edge-credential-${service}` },
                header: "x-commerce-edge-auth",
              },
            },
          },
        },
        {
          name: "envoy.filters.http.upstream_codec",
          typed_config: {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec",
          },
        },
      ]);
    }
    const site = clusters.find((c) => c.name === siteDeployment);
    expect(site, "the site's cluster").to.not.equal(undefined);
    expect(filtersOf(site ?? { name: siteDeployment })).to.equal(undefined);
    // Only the services given get a credential.
    const some = renderEnvoyConfig(contract, withUpstreams(["order", siteDeployment])) as unknown as {
      static_resources: { secrets: { name: string }[] };
    };
    expect(some.static_resources.secrets.map((secret) => secret.name)).to.deep.equal([
      "edge-credential-order",
    ]);
  });

  it("refuses an admin interface off loopback and a service the contract does not have", () => {
    expect(() =>
      renderEnvoyConfig(contract, { ...defaultEnvoyOptions, admin: { host: "0.0.0.0", port: 9901 } }),
    ).to.throw("loopback");
    expect(() => renderEnvoyConfig(contract, withUpstreams(["inventory"]))).to.throw(
      'unknown service "inventory"',
    );
  });

  it("traces nothing without a collector: no tracer, no collector cluster", () => {
    const config = renderEnvoyConfig(contract, defaultEnvoyOptions);
    expect(manager(config)).not.to.have.property("tracing");
    expect(config).not.to.have.property("layered_runtime");
    expect((config as unknown as RenderedConfig).static_resources.clusters.map((c) => c.name)).not.to.include(
      "opentelemetry_collector",
    );
  });

  it("with a collector, traces every request as commerce-edge into its /v1/traces over a cluster at its address, in batches", () => {
    const config = renderEnvoyConfig(contract, {
      ...withUpstreams(["auth"]),
      otlp: otlpExportOf("http://collector.observability:4318/"),
    });
    expect(manager(config).tracing).to.deep.equal({
      provider: {
        name: "envoy.tracers.opentelemetry",
        typed_config: {
          "@type": "type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig",
          http_service: {
            http_uri: {
              uri: "http://collector.observability:4318/v1/traces",
              cluster: "opentelemetry_collector",
              timeout: "2s",
            },
          },
          service_name: "commerce-edge",
        },
      },
      random_sampling: { value: 100 },
    });
    // Spans go out 512 at a time (or every 5 s), not every fifth; the admin layer stays.
    expect(config["layered_runtime"]).to.deep.equal({
      layers: [
        { name: "tracing", static_layer: { "tracing.opentelemetry.min_flush_spans": 512 } },
        { name: "admin", admin_layer: {} },
      ],
    });
    const clusters = (config as unknown as RenderedConfig).static_resources
      .clusters as unknown as JsonObject[];
    expect(clusters.map((c) => c["name"])).to.deep.equal(["auth", "opentelemetry_collector"]);
    expect(JSON.stringify(clusters[1])).to.include(
      '"socket_address":{"address":"collector.observability","port_value":4318}',
    );
  });

  it("takes an OTLP endpoint as OTEL_EXPORTER_OTLP_ENDPOINT gives it: plain http, a base path kept", () => {
    expect(otlpExportOf("http://127.0.0.1:4318")).to.deep.equal({
      tracesUrl: "http://127.0.0.1:4318/v1/traces",
      address: { host: "127.0.0.1", port: 4318 },
      samplePercent: 100,
    });
    expect(otlpExportOf("http://127.0.0.1:4318", 10).samplePercent).to.equal(10);
    expect(otlpExportOf("http://collector/otlp/").tracesUrl).to.equal("http://collector/otlp/v1/traces");
    expect(otlpExportOf("http://collector").address).to.deep.equal({ host: "collector", port: 80 });
    for (const endpoint of ["https://collector:4318", "collector:4318", "http://collector:4318?x=1"]) {
      expect(() => otlpExportOf(endpoint), endpoint).to.throw(EnvoyOptionsError, "http://");
    }
  });

  it("is a configuration Envoy accepts, untraced and traced (envoy --mode validate)", async function () {
    this.timeout(120_000);
    const upstreams = withUpstreams([...contract.deployments.keys(), siteDeployment]);
    const [untraced, traced] = await validateEnvoyConfigs(contract, [
      upstreams,
      { ...upstreams, otlp: otlpExportOf("http://127.0.0.1:4318") },
    ]);
    expect(untraced?.stdout, "untraced").to.include(untraced?.accepted);
    expect(traced?.stdout, "traced").to.include(traced?.accepted);
  });
});

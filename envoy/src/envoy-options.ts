/**
 * What varies between places the Envoy configuration is rendered for: addresses, the upstream
 * of each deployed service, and where Envoy finds its files. Secrets are never parameters:
 * the configuration names files, and whoever runs Envoy puts the secrets there.
 *
 * The defaults suit a Kubernetes namespace that runs the platform: services (and the `web`
 * deployable) reached by their short DNS names on the gRPC port, files mounted under /etc/envoy.
 */

import { deployableServices } from "../../scripts/cluster/service-catalog.js";
import type { EnvoyCors } from "./cors.js";
import type { OtlpExport } from "./tracing.js";

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface EnvoyOptions {
  /** Where the REST edge listens. */
  readonly listen: HostPort;
  /** Envoy's admin interface; always a loopback address (it can stop the server). */
  readonly admin: HostPort;
  /**
   * Deployment name (`auth`, `user`, ..., `web` for the public site) → the gRPC address of each
   * of its replicas (one DNS name in Kubernetes, which resolves to every pod). Only these get
   * routes.
   */
  readonly upstreams: ReadonlyMap<string, readonly HostPort[]>;
  /** The descriptor set Envoy's transcoder loads. */
  readonly descriptorPath: string;
  /** JWKS with the HS512 key that signs access tokens (see envoy-secrets.ts). */
  readonly jwksPath: string;
  /**
   * A folder with one file per routed service, named after it (`order`): the raw text of the
   * edge's credential for that service, sent to it alone in `x-commerce-edge-auth` (ADR 0105).
   */
  readonly edgeCredentialsDir: string;
  /** Where Envoy's tracer sends its spans (tracing.ts); no tracing when unset. */
  readonly otlp?: OtlpExport | undefined;
  /** Browser apps on other origins allowed to call the API (cors.ts); none when unset. */
  readonly cors?: EnvoyCors | undefined;
}

/** The deployable that serves the public site (service-catalog.ts): it gets the site's paths. */
export const siteDeployment: string = (() => {
  const sites = deployableServices.filter((service) => service.kind === "site");
  const [site] = sites;
  if (site === undefined || sites.length > 1) throw new Error("the service catalog must hold one site");
  return site.name;
})();

/** What the edge routes to: the services with an API (not the stream processor), and the site. */
export const defaultDeployments: readonly string[] = deployableServices
  .filter((service) => service.routed || service.kind === "site")
  .map((service) => service.name);

/** The routed services: every deployment the edge routes to but the site, each with a credential. */
export const routedServices: readonly string[] = defaultDeployments.filter((name) => name !== siteDeployment);

/** The port every service's gRPC server listens on in a cluster (`GRPC_PORT`'s default). */
const servicePort = 9090;

export const defaultEnvoyOptions: EnvoyOptions = {
  listen: { host: "0.0.0.0", port: 8080 },
  admin: { host: "127.0.0.1", port: 9901 },
  upstreams: new Map(defaultDeployments.map((name) => [name, [{ host: name, port: servicePort }]])),
  descriptorPath: "/etc/envoy/contract.binpb",
  jwksPath: "/etc/envoy/secrets/jwks.json",
  edgeCredentialsDir: "/etc/envoy/secrets/edge-credentials",
};

export class EnvoyOptionsError extends Error {
  override readonly name = "EnvoyOptionsError";
}

export function parseHostPort(text: string, what: string): HostPort {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || port > 65535) {
    throw new EnvoyOptionsError(`${what} must be host:port, got "${text}"`);
  }
  return { host: match[1].replace(/^\[(.*)\]$/, "$1"), port };
}

const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Checks what the types cannot say; throws EnvoyOptionsError with every problem. */
export function validateEnvoyOptions(
  options: EnvoyOptions,
  knownDeployments: readonly string[],
): EnvoyOptions {
  const problems: string[] = [];
  if (!loopback.test(options.admin.host)) {
    problems.push(`the admin address must be a loopback address, got "${options.admin.host}"`);
  }
  if (options.upstreams.size === 0) problems.push("at least one upstream is needed");
  for (const [name, endpoints] of options.upstreams) {
    if (!knownDeployments.includes(name)) {
      problems.push(`unknown service "${name}" (known: ${knownDeployments.join(", ")})`);
    }
    if (endpoints.length === 0) problems.push(`service "${name}" has no address`);
  }
  for (const [what, path] of [
    ["descriptor path", options.descriptorPath],
    ["JWKS path", options.jwksPath],
    ["edge credentials folder", options.edgeCredentialsDir],
  ] as const) {
    if (!path.startsWith("/")) problems.push(`the ${what} must be absolute, got "${path}"`);
  }
  if (problems.length > 0) throw new EnvoyOptionsError(problems.join("\n"));
  return options;
}

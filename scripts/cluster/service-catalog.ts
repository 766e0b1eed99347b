/**
 * The deployable units of the topology and what each needs from the deployment: its compiled
 * entry point, the peers it calls (by the variable that holds each address), and the settings
 * only it and the others that name them may hold. The edge routes to a routed service the APIs of its proto package
 * (`commerce.<name>.v1`); the analytics stream processor has no API and gets no route; the `web`
 * deployable gets the public site's paths (`/openapi.json`, `/docs`). The multi-process topology
 * reads it here; the Helm chart reads the copy `npm run envoy:config` writes into
 * helm/files/services.json (envoy/src/chart-files.ts). A process receives nothing beyond
 * this.
 */

export type ServiceName =
  | "auth"
  | "user"
  | "product"
  | "order"
  | "notification"
  | "payment"
  | "analytics"
  | "analytics-processor"
  | "recommendation"
  | "web";

/** Deployment-wide values a service may be given, by the variable that carries each. */
export type OwnedSetting =
  | "JWT_SECRET"
  | "JWT_TTL"
  | "ADMIN_EMAIL"
  | "ADMIN_PASSWORD"
  | "PAYMENT_CURRENCY"
  | "RESERVATION_TTL"
  | "PAYMENT_KEY_SECRET"
  | "PAYMENT_WEBHOOK_SECRET"
  | "PAYMENT_GATEWAY_URL"
  | "PAYMENT_KEY_ID"
  | "PAYMENT_SANDBOX"
  | "CLICKHOUSE_URL";

export interface DeployableService {
  readonly name: ServiceName;
  /** The compiled entry point, relative to the build output. */
  readonly entry: string;
  /** Variable → the peer service whose gRPC address it holds. */
  readonly peers: Readonly<Partial<Record<string, ServiceName>>>;
  /** The settings only this service receives. */
  readonly owns: readonly OwnedSetting[];
  /** Whether the edge routes its API to it (every service but the stream processor). */
  readonly routed: boolean;
  /**
   * What it is. A `service` runs `runServiceProcess` (services/runtime/src/server/
   * service-process.ts): it is given the platform's store, Kafka, the trust secrets and
   * telemetry. The `site` runs `runWebProcess` (web-process.ts): it serves the public site from
   * the files of its build, is given nothing but where to listen, how much to log and the
   * settings it owns (no secret), and the edge sends it the site's paths (services/edge/src/public-site.ts, `publicSitePaths`).
   */
  readonly kind: "service" | "site";
}

/** The variable that holds a service's address: `ANALYTICS_PROCESSOR_SERVICE_URL`. */
export function serviceUrlVariable(name: ServiceName): string {
  return `${name.toUpperCase().replaceAll("-", "_")}_SERVICE_URL`;
}

export const deployableServices: readonly DeployableService[] = [
  {
    name: "auth",
    entry: "services/auth/src/main.js",
    peers: { USER_SERVICE_URL: "user" },
    owns: ["JWT_SECRET", "JWT_TTL", "ADMIN_EMAIL", "ADMIN_PASSWORD"],
    routed: true,
    kind: "service",
  },
  {
    name: "user",
    entry: "services/user/src/main.js",
    peers: { AUTH_SERVICE_URL: "auth" },
    owns: [],
    routed: true,
    kind: "service",
  },
  {
    name: "product",
    entry: "services/product/src/main.js",
    peers: { ORDER_SERVICE_URL: "order" },
    owns: ["RESERVATION_TTL"],
    routed: true,
    kind: "service",
  },
  {
    name: "order",
    entry: "services/order/src/main.js",
    peers: { PRODUCT_SERVICE_URL: "product", AUTH_SERVICE_URL: "auth" },
    owns: [],
    routed: true,
    kind: "service",
  },
  {
    name: "notification",
    entry: "services/notification/src/main.js",
    peers: { AUTH_SERVICE_URL: "auth", ORDER_SERVICE_URL: "order" },
    owns: ["PAYMENT_CURRENCY"],
    routed: true,
    kind: "service",
  },
  {
    name: "payment",
    entry: "services/payment/src/main.js",
    peers: { ORDER_SERVICE_URL: "order" },
    owns: [
      "PAYMENT_CURRENCY",
      "PAYMENT_KEY_SECRET",
      "PAYMENT_WEBHOOK_SECRET",
      "PAYMENT_GATEWAY_URL",
      "PAYMENT_KEY_ID",
      "PAYMENT_SANDBOX",
    ],
    routed: true,
    kind: "service",
  },
  {
    name: "analytics",
    entry: "services/analytics/src/main.js",
    peers: {},
    owns: ["CLICKHOUSE_URL"],
    routed: true,
    kind: "service",
  },
  {
    // Writes what the Analytics service reads: both need the same ClickHouse.
    name: "analytics-processor",
    entry: "services/analytics/src/processor/main.js",
    peers: {},
    owns: ["CLICKHOUSE_URL"],
    routed: false,
    kind: "service",
  },
  {
    // Learns from the order events into its own tables in the same ClickHouse.
    name: "recommendation",
    entry: "services/recommendation/src/main.js",
    peers: { PRODUCT_SERVICE_URL: "product", AUTH_SERVICE_URL: "auth" },
    owns: ["CLICKHOUSE_URL"],
    routed: true,
    kind: "service",
  },
  {
    // The public site: the API's description and its reference page (ADR 0027).
    name: "web",
    entry: "services/edge/src/web/main.js",
    peers: {},
    // Its pages may post the payment form to the gateway's origin (ADR 0090).
    owns: ["PAYMENT_GATEWAY_URL"],
    routed: false,
    kind: "site",
  },
];

/**
 * The embedded platform's configuration (README "Configuration"): the settings of every process,
 * of the edge, and of each service it hosts, read with the same readers the services' own
 * processes use. What a cluster must set but a laptop need not (the token key, the edge and peer
 * credentials, an admin account) is generated once and kept under `DATA_DIR/secrets` when unset.
 */
import { readAuthSettings, type AuthSettings } from "@commerce/auth/auth-settings.js";
import {
  readAnalyticsStoreSettings,
  type AnalyticsStoreSettings,
} from "@commerce/runtime/analytics/analytics-store-settings.js";
import { readPaymentSettings, type PaymentSettings } from "@commerce/payment/payment-settings.js";
import { readProductSettings } from "@commerce/product/product-settings.js";
import type { ProductOptions } from "@commerce/product/product-module.js";
import { EnvReader, type Env } from "@commerce/runtime/config/env-reader.js";
import { readCorsSettings, type CorsSettings } from "@commerce/edge/cors-settings.js";
import {
  readInfraSettings,
  readProcessSettings,
  type InfraSettings,
  type ProcessSettings,
} from "@commerce/runtime/config/process-settings.js";
import {
  readTelemetrySettings,
  type TelemetrySettings,
} from "@commerce/runtime/telemetry/telemetry-settings.js";
import { minSecretLength } from "@commerce/runtime/identity/trust-settings.js";
import {
  fileSecrets,
  generateHeaderSecret,
  generateJwtSecret,
  generatePassword,
  type SecretSource,
} from "./local-secrets.js";

export interface EmbeddedConfig {
  /** `PORT` is the REST edge's. */
  readonly process: ProcessSettings;
  /** The services' own Connect/gRPC port (internal clients, probes); 0 picks a free one. */
  readonly grpcPort: number;
  readonly infra: InfraSettings;
  /** CLICKHOUSE_URL, or chDB under DATA_DIR: one store for the processor and the service. */
  readonly analyticsStore: AnalyticsStoreSettings;
  readonly auth: AuthSettings;
  readonly product: ProductOptions;
  /** PAYMENT_CURRENCY. */
  readonly currency: string;
  readonly payment: PaymentSettings;
  /** The edge's credential towards the services (EDGE_SECRET). */
  readonly edgeSecret: string;
  /** The services' credential towards each other (PEER_SECRET). */
  readonly peerSecret: string;
  /** The admin login when it was generated here (no ADMIN_* and no MONGODB_URL). */
  readonly generatedAdmin: { readonly email: string; readonly password: string } | undefined;
  /** The `OTEL_*` variables: tracing of the edge and of each module under its own name. */
  readonly telemetry: TelemetrySettings;
  /** The `CORS_*` variables: which browser apps on other origins may call the edge. */
  readonly cors: CorsSettings;
}

export const generatedAdminEmail = "admin@commerce.local";

export function loadEmbeddedConfig(
  env: Env,
  cwd = process.cwd(),
  secretsFor: (dataDir: string) => SecretSource = fileSecrets,
): EmbeddedConfig {
  const secrets = secretsFor(new EnvReader(env, cwd).path("DATA_DIR", ".data"));
  const blank = (name: string): boolean => (env[name] ?? "").trim() === "";
  const filled: Record<string, string | undefined> = { ...env };
  const generated: [string, string, () => string][] = [
    ["JWT_SECRET", "jwt-secret", generateJwtSecret],
    ["EDGE_SECRET", "edge-secret", generateHeaderSecret],
    ["PEER_SECRET", "peer-secret", generateHeaderSecret],
    ["PAYMENT_KEY_SECRET", "payment-key-secret", generateHeaderSecret],
    ["PAYMENT_WEBHOOK_SECRET", "payment-webhook-secret", generateHeaderSecret],
  ];
  for (const [name, file, generate] of generated) {
    if (blank(name)) filled[name] = secrets.value(file, generate);
  }
  let generatedAdmin: EmbeddedConfig["generatedAdmin"];
  if (blank("ADMIN_EMAIL") && blank("ADMIN_PASSWORD") && blank("MONGODB_URL")) {
    generatedAdmin = {
      email: generatedAdminEmail,
      password: secrets.value("admin-password", generatePassword),
    };
    filled["ADMIN_EMAIL"] = generatedAdmin.email;
    filled["ADMIN_PASSWORD"] = generatedAdmin.password;
  }

  const reader = new EnvReader(filled, cwd);
  const payment = readPaymentSettings(reader);
  const processSettings = readProcessSettings(reader);
  return reader.finish({
    process: processSettings,
    grpcPort: reader.port("GRPC_PORT", 9090),
    infra: readInfraSettings(reader),
    analyticsStore: readAnalyticsStoreSettings(reader, processSettings.dataDir),
    auth: readAuthSettings(reader),
    product: readProductSettings(reader),
    currency: payment.currency,
    payment,
    edgeSecret: reader.headerSecret("EDGE_SECRET", minSecretLength) ?? "",
    peerSecret: reader.headerSecret("PEER_SECRET", minSecretLength) ?? "",
    generatedAdmin,
    telemetry: readTelemetrySettings(reader),
    cors: readCorsSettings(reader),
  });
}

/**
 * The embedded platform's configuration (docs/configuration.md): the settings of every process,
 * of the edge, and of each service it hosts, read with the same readers the services' own
 * processes use. What a cluster must set but a laptop need not (the token key, the edge and peer
 * credentials, an admin account) is generated once and kept under `DATA_DIR/secrets` when unset,
 * and without a payment gateway the sandbox gateway is chosen (ADR 0117).
 */
import { authSettings, readAuthSettings, type AuthSettings } from "@commerce/auth";
import { readAnalyticsStoreSettings, type AnalyticsStoreSettings } from "@commerce/runtime/analytics";
import { gatewaySettings } from "@commerce/runtime/money";
import { paymentSettings, readPaymentSettings, type PaymentSettings } from "@commerce/payment";
import { readProductSettings, type ProductOptions } from "@commerce/product";
import {
  EnvReader,
  type Env,
  declareSettings,
  type Setting,
  dataSettings,
  infraSettings,
  readInfraSettings,
  readProcessSettings,
  type InfraSettings,
  type ProcessSettings,
} from "@commerce/runtime/config";
import { readCorsSettings, type CorsSettings } from "@commerce/edge";
import { readTelemetrySettings, type TelemetrySettings } from "@commerce/runtime/telemetry";
import { minSecretLength, trustSettings } from "@commerce/runtime/identity";
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
  /**
   * Whether payments go to the sandbox gateway because nothing chose a gateway: embedded mode
   * is the one place the sandbox is the default (ADR 0117), and it says so at start.
   */
  readonly sandboxByDefault: boolean;
  /** The `OTEL_*` variables: tracing of the edge and of each module under its own name. */
  readonly telemetry: TelemetrySettings;
  /** The `CORS_*` variables: which browser apps on other origins may call the edge. */
  readonly cors: CorsSettings;
}

export const generatedAdminEmail = "admin@commerce.local";

export const embeddedSettings = declareSettings({
  GRPC_PORT: {
    default: "9090",
    meaning: "The services' own Connect/gRPC/gRPC-Web port in embedded mode (0 picks a free one)",
    readBy: ["embedded"],
  },
});

export function loadEmbeddedConfig(
  env: Env,
  cwd = process.cwd(),
  secretsFor: (dataDir: string) => SecretSource = fileSecrets,
): EmbeddedConfig {
  const options = { cwd, process: "embedded" } as const;
  const secrets = secretsFor(new EnvReader(env, options).path(dataSettings.DATA_DIR));
  const blank = (setting: Setting): boolean => new EnvReader(env, options).string(setting) === undefined;
  const filled: Record<string, string | undefined> = { ...env };
  const generated: [Setting, string, () => string][] = [
    [authSettings.JWT_SECRET, "jwt-secret", generateJwtSecret],
    [trustSettings.EDGE_SECRET, "edge-secret", generateHeaderSecret],
    [trustSettings.PEER_SECRET, "peer-secret", generateHeaderSecret],
    [paymentSettings.PAYMENT_KEY_SECRET, "payment-key-secret", generateHeaderSecret],
    [paymentSettings.PAYMENT_WEBHOOK_SECRET, "payment-webhook-secret", generateHeaderSecret],
  ];
  for (const [setting, file, generate] of generated) {
    if (blank(setting)) filled[setting.name] = secrets.value(file, generate);
  }
  let generatedAdmin: EmbeddedConfig["generatedAdmin"];
  const { ADMIN_EMAIL, ADMIN_PASSWORD } = authSettings;
  if (blank(ADMIN_EMAIL) && blank(ADMIN_PASSWORD) && blank(infraSettings.MONGODB_URL)) {
    generatedAdmin = {
      email: generatedAdminEmail,
      password: secrets.value("admin-password", generatePassword),
    };
    filled[ADMIN_EMAIL.name] = generatedAdmin.email;
    filled[ADMIN_PASSWORD.name] = generatedAdmin.password;
  }

  // With neither a gateway nor PAYMENT_SANDBOX, a laptop pays at the sandbox gateway.
  const { PAYMENT_SANDBOX } = paymentSettings;
  const sandboxByDefault = blank(gatewaySettings.PAYMENT_GATEWAY_URL) && blank(PAYMENT_SANDBOX);
  if (sandboxByDefault) filled[PAYMENT_SANDBOX.name] = "true";

  const reader = new EnvReader(filled, options);
  const payment = readPaymentSettings(reader);
  const processSettings = readProcessSettings(reader);
  return reader.finish({
    process: processSettings,
    grpcPort: reader.port(embeddedSettings.GRPC_PORT),
    infra: readInfraSettings(reader),
    analyticsStore: readAnalyticsStoreSettings(reader, processSettings.dataDir),
    auth: readAuthSettings(reader),
    product: readProductSettings(reader),
    currency: payment.currency,
    payment,
    edgeSecret: reader.headerSecret(trustSettings.EDGE_SECRET, minSecretLength) ?? "",
    peerSecret: reader.headerSecret(trustSettings.PEER_SECRET, minSecretLength) ?? "",
    generatedAdmin,
    sandboxByDefault,
    telemetry: readTelemetrySettings(reader),
    cors: readCorsSettings(reader),
  });
}

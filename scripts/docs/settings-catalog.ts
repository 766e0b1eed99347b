/**
 * Every declared setting (services/runtime/src/config/setting.ts), in the order
 * docs/configuration.md lists them: where a process listens and keeps its data, the
 * infrastructure it uses, each service's own settings, the credentials, the peers' addresses,
 * the edge's CORS and the telemetry. configuration-table.spec.ts fails when a module declares a
 * setting this list leaves out.
 */
import { authSettings } from "@commerce/auth/auth-settings.js";
import { corsSettings } from "@commerce/edge/cors-settings.js";
import { embeddedSettings } from "@commerce/embedded/embedded-config.js";
import { paymentSettings } from "@commerce/payment/payment-settings.js";
import { productSettings } from "@commerce/product/product-settings.js";
import { analyticsStoreSettings } from "@commerce/runtime/analytics/analytics-store-settings.js";
import { dataSettings, infraSettings, serverSettings } from "@commerce/runtime/config/process-settings.js";
import type { Setting } from "@commerce/runtime/config/setting.js";
import { trustSettings } from "@commerce/runtime/identity/trust-settings.js";
import { currencySettings } from "@commerce/runtime/money/currency-setting.js";
import { peerAddresses } from "@commerce/runtime/server/peer-addresses.js";
import { telemetrySettings } from "@commerce/runtime/telemetry/telemetry-settings.js";

const declarations: readonly Readonly<Record<string, Setting>>[] = [
  serverSettings,
  embeddedSettings,
  dataSettings,
  infraSettings,
  analyticsStoreSettings,
  authSettings,
  productSettings,
  currencySettings,
  paymentSettings,
  trustSettings,
  peerAddresses,
  corsSettings,
  telemetrySettings,
];

export const settingsCatalog: readonly Setting[] = declarations.flatMap((declared) =>
  Object.values(declared),
);

/**
 * Every declared setting (services/runtime/src/config/setting.ts), in the order
 * docs/configuration.md lists them: where a process listens and keeps its data, the
 * infrastructure it uses, each service's own settings, the credentials, the peers' addresses
 * and the credential presented at each, the edge's CORS and the telemetry. configuration-table.spec.ts fails when a module declares a
 * setting this list leaves out.
 */
import { authSettings } from "@commerce/auth";
import { corsSettings } from "@commerce/edge";
import { embeddedSettings } from "@commerce/embedded";
import { paymentSettings } from "@commerce/payment";
import { productSettings } from "@commerce/product";
import { analyticsStoreSettings } from "@commerce/runtime/analytics";
import { dataSettings, infraSettings, serverSettings, type Setting } from "@commerce/runtime/config";
import { trustSettings } from "@commerce/runtime/identity";
import { currencySettings, gatewaySettings } from "@commerce/runtime/money";
import { peerAddresses, peerCredentials } from "@commerce/runtime/server";
import { telemetrySettings } from "@commerce/runtime/telemetry";

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
  gatewaySettings,
  trustSettings,
  peerAddresses,
  peerCredentials,
  corsSettings,
  telemetrySettings,
];

export const settingsCatalog: readonly Setting[] = declarations.flatMap((declared) =>
  Object.values(declared),
);

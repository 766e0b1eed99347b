/**
 * docs/configuration.md's table of settings, generated from the settings' declarations
 * (settings-catalog.ts), so that every variable a process reads is documented once, with the
 * default its reader applies. `npm run docs:config` rewrites the table between the guide's
 * markers; a spec fails while the committed table is stale.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { serviceProcesses, type Setting, type SettingReader } from "@commerce/runtime/config";
import { formatMarkdown, withSection, type SectionMarkers } from "./generated-section.js";
import { settingsCatalog } from "./settings-catalog.js";

export const configurationGuidePath = join(import.meta.dirname, "..", "..", "docs", "configuration.md");

export const configurationTableMarkers: SectionMarkers = {
  start: "<!-- configuration-table:start (npm run docs:config) -->",
  end: "<!-- configuration-table:end -->",
};

/** How the table names a process; the guide explains each name above the table. */
const readerLabels: Readonly<Record<SettingReader, string>> = {
  embedded: "embedded",
  auth: "auth",
  user: "user",
  product: "product",
  order: "order",
  notification: "notification",
  payment: "payment",
  analytics: "analytics",
  "analytics-processor": "analytics-processor",
  recommendation: "recommendation",
  web: "web",
  "analytics-rebuild": "`analytics:rebuild`",
  "events-replay": "`events:replay`",
  envoy: "Envoy",
};

/** The processes that read a setting, "every service" standing for all the service processes. */
export function readersOf(setting: Setting): string {
  const readers: readonly SettingReader[] = setting.readBy;
  const everyService = serviceProcesses.every((name) => readers.includes(name));
  const named = readers.filter(
    (name) => !(everyService && (serviceProcesses as readonly string[]).includes(name)),
  );
  const labels = named.map((name) => readerLabels[name]);
  if (everyService) labels.splice(named.includes("embedded") ? 1 : 0, 0, "every service");
  return labels.join(", ");
}

function defaultOf(setting: Setting): string {
  return "default" in setting ? `\`${setting.default}\`` : setting.whenUnset;
}

const cell = (text: string): string => text.replaceAll("|", "\\|");

/** The Markdown table (without the markers). */
export function renderConfigurationTable(settings: readonly Setting[] = settingsCatalog): string {
  return [
    "| Variable | Default | Read by | Meaning |",
    "| --- | --- | --- | --- |",
    ...settings.map(
      (setting) =>
        `| \`${setting.name}\` | ${cell(defaultOf(setting))} | ${readersOf(setting)} | ${cell(setting.meaning)} |`,
    ),
  ].join("\n");
}

/** The guide with the current table, formatted as Prettier formats it. */
export async function configurationGuideWithTable(guide: string): Promise<string> {
  return formatMarkdown(
    configurationGuidePath,
    withSection(guide, configurationTableMarkers, renderConfigurationTable()),
  );
}

export async function readConfigurationGuide(): Promise<string> {
  return readFile(configurationGuidePath, "utf8");
}

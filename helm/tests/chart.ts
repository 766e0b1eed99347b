/**
 * The Helm chart (`helm/`) as the tests see it: where it is, its value profiles, and its
 * manifests rendered by helm and read back as objects.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments, parse } from "yaml";
import { runTool, type ToolRun } from "../../scripts/k8s/run-tool.js";

export const chartDir = join(import.meta.dirname, "..");

/** The value files of each profile, over values.yaml. */
export const chartProfiles = {
  default: [],
  dev: ["values-dev.yaml"],
  production: ["values-production.yaml"],
} as const satisfies Record<string, readonly string[]>;

export type ChartProfile = keyof typeof chartProfiles;

export const profileNames = Object.keys(chartProfiles) as ChartProfile[];

export interface Metadata {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A rendered object; `spec` and the rest are read through narrower types where needed. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: Metadata;
  readonly spec?: unknown;
  readonly data?: Readonly<Record<string, string>>;
  readonly binaryData?: Readonly<Record<string, string>>;
  readonly automountServiceAccountToken?: boolean;
}

type Values = Record<string, unknown>;

/**
 * What an operator must add to a profile before the chart renders (ADR 0117, ADR 0118): the
 * admin's email and the payment gateway, which only the dev profile chooses itself. The tests
 * render each profile with these, as an operator would, and check that it refuses without them.
 */
export const operatorChoices: Readonly<Record<ChartProfile, Values>> = {
  default: { admin: { email: "ops@shop.test" }, payment: { sandbox: true } },
  dev: {},
  production: { payment: { gatewayUrl: "https://api.gateway.example", keyId: "rzp_live_Hq4Jd8Tn2wLp0Z" } },
};

/** `--set-json path=value` for each leaf of `values`. */
function setJsonArgs(values: Values, prefix = ""): string[] {
  return Object.entries(values).flatMap(([key, value]) =>
    isObject(value)
      ? setJsonArgs(value, `${prefix}${key}.`)
      : ["--set-json", `${prefix}${key}=${JSON.stringify(value)}`],
  );
}

/** A profile's value files, without the operator's choices (the chart refuses these alone but for dev). */
export function valueFileArgs(profile: ChartProfile): string[] {
  return chartProfiles[profile].flatMap((file) => ["--values", join(chartDir, file)]);
}

/** A profile's value files and the operator's choices: what an install of that profile passes. */
export function profileArgs(profile: ChartProfile): string[] {
  return [...valueFileArgs(profile), ...setJsonArgs(operatorChoices[profile])];
}

/** `helm template <release> helm/` with a profile (and the operator's choices) and any extra arguments. */
export function helmTemplate(
  helm: string,
  release: string,
  profile: ChartProfile,
  extra: readonly string[] = [],
): Promise<ToolRun> {
  return runTool(helm, ["template", release, chartDir, ...profileArgs(profile), ...extra]);
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/** Renders and parses; throws with helm's message when it fails. */
export async function renderChart(
  helm: string,
  release: string,
  profile: ChartProfile,
  extra: readonly string[] = [],
): Promise<Manifest[]> {
  const result = await helmTemplate(helm, release, profile, extra);
  if (result.status !== 0) throw new Error(`helm template (${profile}) failed: ${result.stderr}`);
  return parseManifests(result.stdout);
}

function isObject(value: unknown): value is Values {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Helm's merge of value files: maps merge key by key, anything else replaces. */
function mergeValues(base: Values, over: Values): Values {
  const merged: Values = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isObject(current) && isObject(value) ? mergeValues(current, value) : value;
  }
  return merged;
}

/** The values a profile renders with (values.yaml overlaid with the profile's files and the operator's choices). */
export async function profileValues(profile: ChartProfile): Promise<Values> {
  let values = parse(await readFile(join(chartDir, "values.yaml"), "utf8")) as Values;
  for (const file of chartProfiles[profile]) {
    values = mergeValues(values, parse(await readFile(join(chartDir, file), "utf8")) as Values);
  }
  return mergeValues(values, operatorChoices[profile]);
}

export function byKind(manifests: readonly Manifest[], kind: string): Manifest[] {
  return manifests.filter((manifest) => manifest.kind === kind);
}

export const componentLabel = "app.kubernetes.io/component";
export const instanceLabel = "app.kubernetes.io/instance";

export function componentOf(manifest: Manifest): string {
  const component = manifest.metadata.labels?.[componentLabel];
  if (component === undefined)
    throw new Error(`${manifest.kind} ${manifest.metadata.name} has no component label`);
  return component;
}

/**
 * The Kubernetes guide's table of the chart's values (docs/kubernetes.md), generated from
 * helm/values.schema.json (the descriptions, types and allowed values) and helm/values.yaml (the
 * defaults), so that the values are documented once. `npm run chart:values-table` rewrites the
 * table between the guide's markers; a spec fails while the committed table is stale.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { formatMarkdown, withSection } from "../../docs/generated-section.js";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const chartDir = join(repoRoot, "helm");
export const kubernetesGuidePath = join(repoRoot, "docs", "kubernetes.md");
export const tableStart = "<!-- values-table:start (npm run chart:values-table) -->";
export const tableEnd = "<!-- values-table:end -->";

interface SchemaNode {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly definitions?: Readonly<Record<string, SchemaNode>>;
}

function resolve(node: SchemaNode, root: SchemaNode): SchemaNode {
  if (node.$ref === undefined) return node;
  const name = node.$ref.replace("#/definitions/", "");
  const target = root.definitions?.[name];
  if (target === undefined) throw new Error(`unresolved ${node.$ref}`);
  return {
    ...resolve(target, root),
    ...(node.description === undefined ? {} : { description: node.description }),
  };
}

function typeOf(node: SchemaNode): string {
  if (node.enum !== undefined) return node.enum.map((value) => `\`${String(value)}\``).join(", ");
  if (node.type !== undefined) return [node.type].flat().join(" or ");
  return node.properties === undefined ? "" : "object";
}

function defaultOf(value: unknown): string {
  if (value === undefined) return "";
  if (value === "") return '`""`';
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 48 ? "see values.yaml" : `\`${text.replaceAll("|", "\\|")}\``;
}

function valueAt(values: unknown, path: readonly string[]): unknown {
  let current = values;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function describesAnyPart(node: SchemaNode, root: SchemaNode): boolean {
  return Object.values(resolve(node, root).properties ?? {}).some(
    (child) => resolve(child, root).description !== undefined || describesAnyPart(child, root),
  );
}

/** One row per described value; an object whose parts are described gets a row per part. */
function rows(node: SchemaNode, root: SchemaNode, values: unknown, path: readonly string[]): string[] {
  const resolved = resolve(node, root);
  const children = Object.entries(resolved.properties ?? {});
  if (describesAnyPart(resolved, root)) {
    return children.flatMap(([key, child]) => rows(child, root, values, [...path, key]));
  }
  if (resolved.description === undefined) return [];
  const cells = [
    `\`${path.join(".")}\``,
    typeOf(resolved),
    defaultOf(valueAt(values, path)),
    resolved.description.replaceAll("|", "\\|"),
  ];
  return [`| ${cells.join(" | ")} |`];
}

/** The Markdown table (without the markers). */
export async function renderValuesTable(): Promise<string> {
  const schema = JSON.parse(await readFile(join(chartDir, "values.schema.json"), "utf8")) as SchemaNode;
  const values = parse(await readFile(join(chartDir, "values.yaml"), "utf8")) as unknown;
  return [
    "| Value | Type | Default | Meaning |",
    "| --- | --- | --- | --- |",
    ...rows(schema, schema, values, []),
  ].join("\n");
}

/** The guide with the current table, formatted as Prettier formats it (aligned columns). */
export async function guideWithValuesTable(guide: string): Promise<string> {
  return formatMarkdown(kubernetesGuidePath, withValuesTable(guide, await renderValuesTable()));
}

/** `text` with the table between the markers replaced by `table`. */
export function withValuesTable(text: string, table: string): string {
  return withSection(text, { start: tableStart, end: tableEnd }, table);
}

/**
 * The README's table of the chart's values, generated from helm/values.schema.json (the
 * descriptions, types and allowed values) and helm/values.yaml (the defaults), so that the
 * values are documented once. `npm run chart:values-table` rewrites the table between the
 * README's markers; a spec fails while the committed table is stale.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { parse } from "yaml";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const chartDir = join(repoRoot, "helm");
export const readmePath = join(repoRoot, "README.md");
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

/** The README with the current table, formatted as Prettier formats it (aligned columns). */
export async function readmeWithValuesTable(readme: string): Promise<string> {
  const options = (await resolveConfig(readmePath)) ?? {};
  return format(withValuesTable(readme, await renderValuesTable()), { ...options, filepath: readmePath });
}

/** `text` with the table between the markers replaced by `table`. */
export function withValuesTable(text: string, table: string): string {
  const start = text.indexOf(tableStart);
  const end = text.indexOf(tableEnd);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${tableStart} … ${tableEnd}`);
  return `${text.slice(0, start + tableStart.length)}\n\n${table}\n\n${text.slice(end)}`;
}

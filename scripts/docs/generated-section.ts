/**
 * A generated part of a Markdown guide: the text between two marker comments, rewritten by a
 * script (`npm run docs:config`, `npm run chart:values-table`) and checked by a spec that fails
 * while the committed text is stale.
 */
import { format, resolveConfig } from "prettier";

export interface SectionMarkers {
  readonly start: string;
  readonly end: string;
}

/** `text` with what lies between the markers replaced by `content`. */
export function withSection(text: string, markers: SectionMarkers, content: string): string {
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (start < 0 || end < start)
    throw new Error(`the guide lacks the markers ${markers.start} … ${markers.end}`);
  return `${text.slice(0, start + markers.start.length)}\n\n${content}\n\n${text.slice(end)}`;
}

/** `text` formatted as Prettier formats the file at `path` (a table's columns aligned). */
export async function formatMarkdown(path: string, text: string): Promise<string> {
  const options = (await resolveConfig(path)) ?? {};
  return format(text, { ...options, filepath: path });
}

/**
 * The web app's budget: the JavaScript a browser must fetch before the first page can run, at
 * most 200 kB once compressed. That is the entry chunk and every chunk it imports statically,
 * transitively; chunks imported dynamically (the admin console, loaded when an admin opens it)
 * are not part of the first page. Measured both ways a server may compress it, gzip and Brotli,
 * at their highest levels (what a static host precompresses with).
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** 200 kB compressed, as the issue that introduced the app set it (kB = 1000 bytes). */
export const firstPageBudgetBytes = 200_000;

/** What the bundler reports of one JavaScript chunk. */
export interface BuiltChunk {
  readonly fileName: string;
  readonly isEntry: boolean;
  /** Files this chunk imports statically. */
  readonly imports: readonly string[];
  readonly code: string;
}

export interface FirstPageJavaScript {
  readonly files: readonly string[];
  readonly rawBytes: number;
  readonly gzipBytes: number;
  readonly brotliBytes: number;
}

/** The first page's chunks and their sizes; throws if the bundle has no entry chunk. */
export function measureFirstPage(chunks: readonly BuiltChunk[]): FirstPageJavaScript {
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const entries = chunks.filter((chunk) => chunk.isEntry);
  if (entries.length === 0) throw new Error("the web app's bundle has no entry chunk");
  const loaded = new Set<string>();
  const visit = (chunk: BuiltChunk): void => {
    if (loaded.has(chunk.fileName)) return;
    loaded.add(chunk.fileName);
    for (const name of chunk.imports) {
      const imported = byName.get(name);
      if (imported !== undefined) visit(imported);
    }
  };
  for (const entry of entries) visit(entry);
  const files = [...loaded].sort();
  const code = Buffer.concat(files.map((name) => Buffer.from(byName.get(name)?.code ?? "")));
  return {
    files,
    rawBytes: code.length,
    // Each file is compressed on its own, as a server sends it.
    gzipBytes: sum(files, (name) => gzipSync(byName.get(name)?.code ?? "", { level: 9 }).length),
    brotliBytes: sum(
      files,
      (name) =>
        brotliCompressSync(byName.get(name)?.code ?? "", {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
        }).length,
    ),
  };
}

function sum(files: readonly string[], size: (name: string) => number): number {
  return files.reduce((total, name) => total + size(name), 0);
}

/** One line for the build's output, e.g. `first page's JavaScript: 61.2 kB gzip, 52.9 kB brotli ...`. */
export function describeFirstPage(measured: FirstPageJavaScript): string {
  const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;
  return (
    `first page's JavaScript (${measured.files.length} file${measured.files.length === 1 ? "" : "s"}, ` +
    `${kB(measured.rawBytes)}): ${kB(measured.gzipBytes)} gzip, ${kB(measured.brotliBytes)} brotli ` +
    `(budget ${kB(firstPageBudgetBytes)} compressed)`
  );
}

/** Whether both compressed sizes are within the budget. */
export function withinBudget(measured: FirstPageJavaScript): boolean {
  return Math.max(measured.gzipBytes, measured.brotliBytes) <= firstPageBudgetBytes;
}

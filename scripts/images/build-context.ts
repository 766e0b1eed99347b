/**
 * The build context Docker would send: the files of a folder that `.dockerignore` lets through,
 * decided as Docker decides it (moby's patternmatcher): patterns are matched in order against
 * the file's path and against each of its parent folders, a later pattern overrides an earlier
 * one, and `!` lets back in. Patterns use `*`, `?` and `**`; anything else (character classes,
 * escapes) is refused, so the replay never guesses.
 */
import { existsSync, lstatSync, readFileSync, readdirSync } from "node:fs";
import { join, posix } from "node:path";

interface IgnorePattern {
  readonly text: string;
  readonly exclusion: boolean;
  readonly regex: RegExp;
}

/** Parses `.dockerignore` text into patterns (comments and blank lines dropped). */
export function parseDockerignore(text: string): IgnorePattern[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const exclusion = line.startsWith("!");
      const raw = (exclusion ? line.slice(1) : line).trim();
      if (/[[\]\\{}]/.test(raw))
        throw new Error(`.dockerignore: "${line}" uses syntax the replay does not read`);
      const cleaned = posix.normalize(raw).replace(/^\/+/, "").replace(/\/+$/, "");
      return { text: line, exclusion, regex: patternRegex(cleaned) };
    });
}

/** `**` any number of folders, `*` and `?` within one path segment; anchored at both ends. */
function patternRegex(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern.charAt(i);
    if (char === "*" && pattern.charAt(i + 1) === "*") {
      i++;
      if (pattern.charAt(i + 1) === "/") {
        i++;
        source += "(?:.*/)?";
      } else source += ".*";
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^$()|]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** Whether Docker leaves `path` (relative, `/`-separated) out of the context. */
export function isIgnored(patterns: readonly IgnorePattern[], path: string): boolean {
  const parents = path.split("/").slice(0, -1);
  let matched = false;
  for (const pattern of patterns) {
    // An inclusion cannot change a path already left out, nor an exclusion one still in.
    if (pattern.exclusion !== matched) continue;
    let match = pattern.regex.test(path);
    for (let i = 1; !match && i <= parents.length; i++)
      match = pattern.regex.test(parents.slice(0, i).join("/"));
    if (match) matched = !pattern.exclusion;
  }
  return matched;
}

/** Whether an exception could match something inside `folder` (by its text before any wildcard). */
function couldMatchUnder(pattern: IgnorePattern, folder: string): boolean {
  const literal = pattern.text.replace(/^!\s*\/?/, "").split(/[*?]/)[0] ?? "";
  return literal.startsWith(`${folder}/`) || `${folder}/`.startsWith(literal);
}

export interface ContextEntry {
  /** Relative to the context, `/`-separated. */
  readonly path: string;
  readonly kind: "file" | "symlink";
  readonly bytes: number;
}

/** Every file and symbolic link of the context, sorted by path. */
export function listBuildContext(contextDir: string): ContextEntry[] {
  const ignoreFile = join(contextDir, ".dockerignore");
  const patterns = existsSync(ignoreFile) ? parseDockerignore(readFileSync(ignoreFile, "utf8")) : [];
  const entries: ContextEntry[] = [];
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(contextDir, relative)).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const stat = lstatSync(join(contextDir, path));
      if (stat.isDirectory()) {
        // A folder left out is still entered when a `!` pattern could let a file in it back in.
        if (!isIgnored(patterns, path) || patterns.some((p) => p.exclusion && couldMatchUnder(p, path)))
          walk(path);
      } else if (!isIgnored(patterns, path)) {
        entries.push({ path, kind: stat.isSymbolicLink() ? "symlink" : "file", bytes: stat.size });
      }
    }
  };
  walk("");
  return entries;
}

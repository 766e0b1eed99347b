/**
 * Reads our Dockerfile into stages of typed instructions, for the replay that proves the images
 * without Docker (image-replay.ts). Only the subset the file uses is understood: FROM … AS, ARG,
 * ENV, WORKDIR, COPY (--from, --chown), RUN (shell form, cache mounts), USER, ENTRYPOINT and
 * CMD (exec form), EXPOSE, LABEL, STOPSIGNAL. Anything else, or an option of these the replay
 * does not perform, is refused with its line: a replay that skipped it would prove a different
 * image from the one Docker builds.
 */

export type Instruction = { readonly line: number } & (
  | { readonly kind: "ARG"; readonly name: string; readonly value: string | undefined }
  | { readonly kind: "ENV"; readonly pairs: readonly (readonly [string, string])[] }
  | { readonly kind: "LABEL"; readonly pairs: readonly (readonly [string, string])[] }
  | { readonly kind: "WORKDIR"; readonly path: string }
  | {
      readonly kind: "COPY";
      readonly from: string | undefined;
      readonly chown: string | undefined;
      readonly sources: readonly string[];
      readonly destination: string;
    }
  | { readonly kind: "RUN"; readonly command: string; readonly cacheTargets: readonly string[] }
  | { readonly kind: "USER"; readonly user: string }
  | { readonly kind: "ENTRYPOINT" | "CMD"; readonly argv: readonly string[] }
  | { readonly kind: "EXPOSE"; readonly ports: readonly string[] }
  | { readonly kind: "STOPSIGNAL"; readonly signal: string }
);

export interface Stage {
  /** The stage's name (`AS name`); the build target of that name. */
  readonly name: string;
  /** An image reference, or an earlier stage's name. */
  readonly from: string;
  readonly line: number;
  readonly instructions: readonly Instruction[];
}

export interface Dockerfile {
  /** ARGs declared before the first FROM: usable in FROM lines, and by stages that redeclare them. */
  readonly globalArgs: ReadonlyMap<string, string | undefined>;
  readonly stages: readonly Stage[];
}

export class DockerfileError extends Error {}

/** Joins continued lines and drops comments, keeping each instruction's first line number. */
function logicalLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let current: { line: number; text: string } | undefined;
  for (const [index, raw] of text.split("\n").entries()) {
    if (/^\s*#/.test(raw)) continue; // comments (and the syntax directive), also inside continuations
    if (current === undefined && raw.trim() === "") continue;
    const continued = /\\\s*$/.test(raw);
    const body = continued ? raw.replace(/\\\s*$/, "") : raw;
    current =
      current === undefined
        ? { line: index + 1, text: body }
        : { ...current, text: `${current.text} ${body}` };
    if (!continued) {
      lines.push({ line: current.line, text: current.text.trim() });
      current = undefined;
    }
  }
  if (current !== undefined)
    throw new DockerfileError(`line ${current.line}: the file ends inside a continued line`);
  return lines;
}

/** Splits on whitespace outside quotes; quotes are removed, `\\` escapes within double quotes. */
function words(text: string, line: number): string[] {
  const result: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (quote === undefined && /\s/.test(char)) {
      if (word !== undefined) result.push(word);
      word = undefined;
    } else if (quote === undefined && (char === '"' || char === "'")) {
      quote = char;
      word ??= "";
    } else if (char === quote) quote = undefined;
    else if (char === "\\" && quote === '"' && i + 1 < text.length) word = (word ?? "") + text.charAt(++i);
    else word = (word ?? "") + char;
  }
  if (quote !== undefined) throw new DockerfileError(`line ${line}: unclosed quote in "${text}"`);
  if (word !== undefined) result.push(word);
  return result;
}

function keyValuePairs(text: string, line: number, kind: string): [string, string][] {
  return words(text, line).map((word) => {
    const equals = word.indexOf("=");
    if (equals <= 0) throw new DockerfileError(`line ${line}: ${kind} takes key=value pairs, got "${word}"`);
    return [word.slice(0, equals), word.slice(equals + 1)];
  });
}

function execForm(text: string, line: number, kind: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DockerfileError(
      `line ${line}: ${kind} must be in exec form (a JSON array): no shell in the image`,
    );
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((a) => typeof a === "string")) {
    throw new DockerfileError(`line ${line}: ${kind} must be a non-empty JSON array of strings`);
  }
  return parsed;
}

/** Leading `--name=value` options, each of which must be one the instruction allows. */
function options(text: string, line: number, kind: string, allowed: readonly string[]) {
  const found = new Map<string, string[]>();
  let rest = text;
  for (
    let match = /^--([a-z-]+)=(\S+)\s+/.exec(rest);
    match !== null;
    match = /^--([a-z-]+)=(\S+)\s+/.exec(rest)
  ) {
    const [whole, name = "", value = ""] = match;
    if (!allowed.includes(name)) throw new DockerfileError(`line ${line}: ${kind} --${name} is not replayed`);
    found.set(name, [...(found.get(name) ?? []), value]);
    rest = rest.slice(whole.length);
  }
  if (rest.startsWith("--"))
    throw new DockerfileError(`line ${line}: ${kind} ${rest.split(/\s/)[0] ?? ""} is not replayed`);
  return { found, rest };
}

function instruction(line: number, keyword: string, args: string): Instruction {
  switch (keyword) {
    case "ARG": {
      const [name = "", ...value] = args.split("=");
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        throw new DockerfileError(`line ${line}: bad ARG "${args}"`);
      return {
        line,
        kind: "ARG",
        name,
        value: value.length === 0 ? undefined : words(value.join("="), line).join(" "),
      };
    }
    case "ENV":
    case "LABEL":
      return { line, kind: keyword, pairs: keyValuePairs(args, line, keyword) };
    case "WORKDIR":
      return { line, kind: "WORKDIR", path: args };
    case "COPY": {
      const { found, rest } = options(args, line, "COPY", ["from", "chown"]);
      if (rest.startsWith("[")) throw new DockerfileError(`line ${line}: COPY in JSON form is not replayed`);
      const paths = words(rest, line);
      if (paths.length < 2) throw new DockerfileError(`line ${line}: COPY needs a source and a destination`);
      return {
        line,
        kind: "COPY",
        from: found.get("from")?.[0],
        chown: found.get("chown")?.[0],
        sources: paths.slice(0, -1),
        destination: paths.at(-1) ?? "",
      };
    }
    case "RUN": {
      const { found, rest } = options(args, line, "RUN", ["mount"]);
      if (rest.startsWith("[")) throw new DockerfileError(`line ${line}: RUN in exec form is not replayed`);
      const cacheTargets = (found.get("mount") ?? []).map((mount) => {
        const fields = new Map(mount.split(",").map((field) => field.split("=") as [string, string]));
        const target = fields.get("target");
        if (fields.get("type") !== "cache" || target === undefined || fields.size !== 2) {
          throw new DockerfileError(
            `line ${line}: only --mount=type=cache,target=… is replayed, got ${mount}`,
          );
        }
        return target;
      });
      return { line, kind: "RUN", command: rest, cacheTargets };
    }
    case "USER":
      return { line, kind: "USER", user: args };
    case "ENTRYPOINT":
    case "CMD":
      return { line, kind: keyword, argv: execForm(args, line, keyword) };
    case "EXPOSE":
      return { line, kind: "EXPOSE", ports: words(args, line) };
    case "STOPSIGNAL":
      return { line, kind: "STOPSIGNAL", signal: args };
    default:
      throw new DockerfileError(
        `line ${line}: ${keyword} is not replayed, so the proof would not match the image`,
      );
  }
}

export function parseDockerfile(text: string): Dockerfile {
  const globalArgs = new Map<string, string | undefined>();
  const stages: { name: string; from: string; line: number; instructions: Instruction[] }[] = [];
  for (const { line, text: logical } of logicalLines(text)) {
    const [, keyword = "", args = ""] = /^(\S+)\s*(.*)$/.exec(logical) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === "FROM") {
      const match = /^([^-\s]\S*)\s+AS\s+([a-z][a-z0-9_.-]*)$/i.exec(args);
      if (match === null) {
        throw new DockerfileError(`line ${line}: FROM must read "FROM <image> AS <name>" (no options)`);
      }
      const [, from = "", name = ""] = match;
      if (stages.some((s) => s.name === name))
        throw new DockerfileError(`line ${line}: stage ${name} is named twice`);
      stages.push({ name, from, line, instructions: [] });
      continue;
    }
    const parsed = instruction(line, upper, args);
    const stage = stages.at(-1);
    if (stage !== undefined) stage.instructions.push(parsed);
    else if (parsed.kind === "ARG") globalArgs.set(parsed.name, parsed.value);
    else throw new DockerfileError(`line ${line}: only ARG may come before the first FROM`);
  }
  if (stages.length === 0) throw new DockerfileError("no FROM: no stage to build");
  return { globalArgs, stages };
}

/** Docker's substitution of `$NAME` and `${NAME}` (unset is empty); modifiers are refused. */
export function expandVariables(text: string, values: ReadonlyMap<string, string>, line: number): string {
  if (/\$\{[^}]*[^A-Za-z0-9_}][^}]*\}/.test(text)) {
    throw new DockerfileError(
      `line ${line}: "${text}" uses a substitution modifier the replay does not perform`,
    );
  }
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_, braced?: string, bare?: string) => {
      return values.get(braced ?? bare ?? "") ?? "";
    },
  );
}

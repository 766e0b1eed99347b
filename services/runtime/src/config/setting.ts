/**
 * A setting's declaration: its variable, its default, what it means and which processes read
 * it. Readers read through declarations only (`EnvReader` takes a `Setting`, not a name) and
 * take their defaults from them, and a process's reader refuses a setting not declared for that
 * process, so docs/configuration.md, generated from the declarations (`npm run docs:config`),
 * lists every variable each process reads, with the default it really applies.
 */

/** The service processes (`services/<name>/src/main.ts`, the stream processor's). */
export const serviceProcesses = [
  "auth",
  "user",
  "product",
  "order",
  "notification",
  "payment",
  "analytics",
  "analytics-processor",
  "recommendation",
] as const;

export type ServiceProcessName = (typeof serviceProcesses)[number];

/**
 * Every process that reads settings: the embedded platform (`npm start`), each service process,
 * the `web` process, `npm run analytics:rebuild`, `npm run events:replay`, and the Envoy
 * configuration the multi-process topology generates (its CORS settings).
 */
export const settingReaders = [
  "embedded",
  ...serviceProcesses,
  "web",
  "analytics-rebuild",
  "events-replay",
  "envoy",
] as const;

export type SettingReader = (typeof settingReaders)[number];

interface SettingFacts {
  /** The environment variable. */
  readonly name: string;
  /** What it is for and which values it takes: one line of docs/configuration.md. */
  readonly meaning: string;
  readonly readBy: readonly SettingReader[];
}

/** A setting whose reader takes this value when the variable is unset or blank. */
export interface DefaultedSetting extends SettingFacts {
  readonly default: string;
}

/**
 * A setting without a default value: unset, it selects something else (an embedded stand-in, a
 * generated secret), turns a feature off, or is a problem the reader reports.
 */
export interface UndefaultedSetting extends SettingFacts {
  /** What unset means, as docs/configuration.md says it. */
  readonly whenUnset: string;
}

export type Setting = DefaultedSetting | UndefaultedSetting;

type Declaration = Omit<DefaultedSetting, "name"> | Omit<UndefaultedSetting, "name">;

/** Settings by variable name, each declaration given its name. */
export type Settings<T extends Readonly<Record<string, Declaration>>> = {
  readonly [K in keyof T & string]: T[K] & { readonly name: K };
};

/** Declares settings keyed by their variable names: `declareSettings({ PORT: { default: "8080", … } })`. */
export function declareSettings<const T extends Readonly<Record<string, Declaration>>>(
  declarations: T,
): Settings<T> {
  const named = Object.entries(declarations).map(([name, declaration]): [string, Setting] => [
    name,
    { ...declaration, name },
  ]);
  // Each entry is its declaration with its own key as name, which is what Settings<T> says.
  return Object.fromEntries(named) as unknown as Settings<T>;
}

/** True when `value` is a declared setting (the documentation's generator looks for them). */
export function isSetting(value: unknown): value is Setting {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<DefaultedSetting & UndefaultedSetting>;
  return (
    typeof candidate.name === "string" &&
    typeof candidate.meaning === "string" &&
    Array.isArray(candidate.readBy) &&
    (typeof candidate.default === "string" || typeof candidate.whenUnset === "string")
  );
}

/**
 * Reads settings from the environment once, at start, and collects every problem instead of
 * stopping at the first, so an operator fixes a bad deployment in one round (ADR 0017).
 * Each process composes the readers of the settings it owns; nothing else
 * reads `process.env`. Every read names a declared setting (setting.ts), whose default it
 * applies.
 */
import { resolve } from "node:path";
import type { DefaultedSetting, Setting, SettingReader, UndefaultedSetting } from "./setting.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** Every invalid variable, each with its own message. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export interface EnvReaderOptions {
  /** Resolves relative paths (DATA_DIR); the working directory by default. */
  readonly cwd?: string;
  /**
   * The process reading: a setting not declared for it is refused (a programming error, not a
   * configuration problem), so that docs/configuration.md says which process reads what.
   */
  readonly process?: SettingReader;
}

export class EnvReader {
  private readonly problems: string[] = [];
  private readonly cwd: string;
  private readonly process: SettingReader | undefined;

  constructor(
    private readonly env: Env,
    options: EnvReaderOptions = {},
  ) {
    this.cwd = options.cwd ?? process.cwd();
    this.process = options.process;
  }

  /** The trimmed value, or undefined when unset or blank. */
  string(setting: Setting): string | undefined {
    const value = this.value(setting)?.trim();
    return value === undefined || value === "" ? undefined : value;
  }

  /** The trimmed value, or the setting's default when unset or blank. */
  stringOrDefault(setting: DefaultedSetting): string {
    return this.string(setting) ?? setting.default;
  }

  /** The raw value as given (for messages), even when blank. */
  raw(setting: Setting): string {
    return this.value(setting) ?? "";
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  /** A value that must be set; records a problem (and answers "") when it is not. */
  required(setting: Setting, why: string): string {
    const value = this.string(setting);
    if (value === undefined) this.problem(`${setting.name} is required ${why}`);
    return value ?? "";
  }

  port(setting: DefaultedSetting): number {
    const fallback = Number(setting.default);
    const raw = this.string(setting);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value > 65535) {
      this.problem(`${setting.name} must be a port number from 0 to 65535, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  /** `true` or `false`, in any case; the default when unset, or undefined when there is none. */
  boolean(setting: DefaultedSetting): boolean;
  boolean(setting: UndefaultedSetting): boolean | undefined;
  boolean(setting: Setting): boolean | undefined {
    const raw = ("default" in setting ? this.stringOrDefault(setting) : this.string(setting))?.toLowerCase();
    if (raw === undefined) return undefined;
    if (raw !== "true" && raw !== "false") {
      this.problem(`${setting.name} must be true or false, got "${this.raw(setting)}"`);
    }
    return raw === "true";
  }

  /** A whole number within bounds. */
  integer(setting: DefaultedSetting, min: number, max: number): number {
    const raw = this.stringOrDefault(setting);
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      this.problem(`${setting.name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return Number(setting.default);
    }
    return value;
  }

  url(setting: Setting, protocols: readonly string[]): string | undefined {
    const raw = this.string(setting);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        this.problem(`${setting.name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
      }
    } catch {
      this.problem(`${setting.name} must be a URL, got "${raw}"`);
    }
    return raw;
  }

  /** A directory, resolved against the working directory. */
  path(setting: DefaultedSetting): string {
    return resolve(this.cwd, this.stringOrDefault(setting));
  }

  /**
   * A shared secret sent in a header: visible ASCII only (a header value must not be folded or
   * re-encoded on the way) and long enough to resist guessing.
   */
  headerSecret(setting: Setting, minLength: number): string | undefined {
    const value = this.string(setting);
    if (value === undefined) return undefined;
    if (!/^[\x21-\x7e]+$/.test(value) || value.length < minLength) {
      this.problem(`${setting.name} must be at least ${minLength} visible ASCII characters without spaces`);
    }
    return value;
  }

  /** A duration ("3600", "90s", "15m", "1h", "7d") in seconds, within bounds. */
  duration(setting: DefaultedSetting, minSeconds: number, maxSeconds: number, example: string): number {
    const seconds = parseDuration(this.stringOrDefault(setting));
    if (seconds === undefined || seconds < minSeconds || seconds > maxSeconds) {
      this.problem(`${setting.name} must be a duration ${example}, got "${this.raw(setting)}"`);
      return parseDuration(setting.default) ?? minSeconds;
    }
    return seconds;
  }

  /** Returns `value` when every read so far was valid; otherwise throws one ConfigError. */
  finish<T>(value: T): T {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
    return value;
  }

  private value(setting: Setting): string | undefined {
    if (this.process !== undefined && !setting.readBy.includes(this.process)) {
      throw new Error(
        `${setting.name} is not declared as read by the ${this.process} process: add it to its declaration's readBy`,
      );
    }
    return this.env[setting.name];
  }
}

/** "3600", "90s", "15m", "1h", "7d" → seconds; undefined when malformed. */
export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  if (match === null) return undefined;
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as "" | "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

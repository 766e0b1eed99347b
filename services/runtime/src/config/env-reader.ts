/**
 * Reads settings from the environment once, at start, and collects every problem instead of
 * stopping at the first, so an operator fixes a bad deployment in one round (ADR 0017).
 * Each process composes the readers of the settings it owns; nothing else
 * reads `process.env`.
 */
import { resolve } from "node:path";

export type Env = Readonly<Record<string, string | undefined>>;

/** Every invalid variable, each with its own message. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(
    private readonly env: Env,
    private readonly cwd: string = process.cwd(),
  ) {}

  /** The trimmed value, or undefined when unset or blank. */
  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  }

  /** The raw value as given (for messages), even when blank. */
  raw(name: string): string {
    return this.env[name] ?? "";
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  /** A value that must be set; records a problem (and answers "") when it is not. */
  required(name: string, why: string): string {
    const value = this.string(name);
    if (value === undefined) this.problem(`${name} is required ${why}`);
    return value ?? "";
  }

  port(name: string, fallback: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value > 65535) {
      this.problem(`${name} must be a port number from 0 to 65535, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  /** A whole number within bounds. */
  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name) ?? String(fallback);
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      this.problem(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        this.problem(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
      }
    } catch {
      this.problem(`${name} must be a URL, got "${raw}"`);
    }
    return raw;
  }

  /** A directory, resolved against the working directory. */
  path(name: string, fallback: string): string {
    return resolve(this.cwd, this.string(name) ?? fallback);
  }

  /**
   * A shared secret sent in a header: visible ASCII only (a header value must not be folded or
   * re-encoded on the way) and long enough to resist guessing.
   */
  headerSecret(name: string, minLength: number): string | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^[\x21-\x7e]+$/.test(value) || value.length < minLength) {
      this.problem(`${name} must be at least ${minLength} visible ASCII characters without spaces`);
    }
    return value;
  }

  /** A duration ("3600", "90s", "15m", "1h", "7d") in seconds, within bounds. */
  duration(name: string, fallback: string, minSeconds: number, maxSeconds: number, example: string): number {
    const seconds = parseDuration(this.string(name) ?? fallback);
    if (seconds === undefined || seconds < minSeconds || seconds > maxSeconds) {
      this.problem(`${name} must be a duration ${example}, got "${this.raw(name)}"`);
      return parseDuration(fallback) ?? minSeconds;
    }
    return seconds;
  }

  /** Returns `value` when every read so far was valid; otherwise throws one ConfigError. */
  finish<T>(value: T): T {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
    return value;
  }
}

/** "3600", "90s", "15m", "1h", "7d" → seconds; undefined when malformed. */
export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
  if (match === null) return undefined;
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as "" | "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

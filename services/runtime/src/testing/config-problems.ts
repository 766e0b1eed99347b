import { ConfigError } from "../config/env-reader.js";

/** The problems `read` reports in its ConfigError; throws when it reports none or fails otherwise. */
export function configProblems(read: () => unknown): readonly string[] {
  try {
    read();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a configuration error");
}

/**
 * Where the project keeps what it installs or builds for its tests and tools (FerretDB's
 * launcher, Kafka, ClickHouse, Chromium, Envoy, Jaeger, the Kubernetes tools, Node.js):
 * `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform`, outside the repository, so that a fresh
 * clone or a `git clean` pays for none of it again, and `rm -rf` of that folder resets it.
 * Toolchains' own caches (Go's module and build caches, pip's, npm's, Maven's) stay where each
 * toolchain keeps them (ADR 0069).
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** The project's cache folder for this environment. */
export function projectCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env["XDG_CACHE_HOME"];
  const cacheHome = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env["HOME"] ?? homedir(), ".cache");
  return join(cacheHome, "commerce-platform");
}

/**
 * `npm start`: the whole platform in one process. Reads the environment once, starts, prints
 * where it listens and how to log in as admin, and shuts down gracefully on SIGINT/SIGTERM.
 */
import { ConfigError } from "@commerce/runtime/config";
import { createLogger } from "@commerce/runtime/logging";
import { shutdownOnSignals } from "@commerce/runtime/server";
import { loadEmbeddedConfig } from "./embedded-config.js";
import { startPlatform } from "./embedded-platform.js";

async function main(): Promise<void> {
  let config;
  try {
    config = loadEmbeddedConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.process.logLevel, "commerce");
  const started = Date.now();
  const platform = await startPlatform({ config, logger });
  const admin = config.generatedAdmin;
  const lines = [
    "",
    `Commerce platform ready in ${Date.now() - started} ms (store: ${platform.mode.store}, events: ${platform.mode.bus}, analytics: ${platform.mode.analytics})`,
    `  Web app:        ${platform.url}/ (storefront; an admin's login opens the console)`,
    `  REST edge:      ${platform.url}/api/...`,
    `  gRPC/Connect:   ${platform.grpcUrl} (internal)`,
    admin === undefined
      ? "  Admin login:    the ADMIN_EMAIL / ADMIN_PASSWORD you configured"
      : `  Admin login:    curl -s -X POST ${platform.url}/api/auth/login -H 'content-type: application/json' -d '{"email":"${admin.email}","password":"${admin.password}"}'`,
    "",
  ];
  process.stdout.write(lines.join("\n") + "\n");
  shutdownOnSignals(logger, () => platform.close());
}

main().catch((error: unknown) => {
  console.error("failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});

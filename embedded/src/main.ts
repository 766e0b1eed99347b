/**
 * `npm start`: the whole platform in one process. Reads the environment once, starts, prints
 * where it listens and how to log in as admin, and shuts down gracefully on SIGINT/SIGTERM.
 */
import { ConfigError } from "@commerce/runtime/config";
import { createLogger } from "@commerce/runtime/logging";
import { shutdownOnSignals } from "@commerce/runtime/server";
import { loadEmbeddedConfig, type EmbeddedConfig } from "./embedded-config.js";
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
    `  Payments:       ${paymentsLine(config)}`,
    "",
  ];
  process.stdout.write(lines.join("\n") + "\n");
  shutdownOnSignals(logger, () => platform.close());
}

/** Which gateway takes the payments: the sandbox is said to take no money, wherever it came from. */
function paymentsLine(config: EmbeddedConfig): string {
  const { gateway } = config.payment;
  if (gateway.kind === "http") return `the gateway at ${gateway.baseUrl}`;
  return config.sandboxByDefault
    ? "the sandbox gateway, which takes no money (no PAYMENT_GATEWAY_URL is set)"
    : "the sandbox gateway, which takes no money (PAYMENT_SANDBOX=true)";
}

main().catch((error: unknown) => {
  console.error("failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});

import type { ServiceModule } from "../server/service-module.js";
import type { AnalyticsStore } from "./analytics-store.js";

/**
 * A module built on a store its process opened for it alone: the store closes after the module
 * stops, or at once if building fails. (The embedded platform shares one store between the
 * modules that use one, and closes it itself.)
 */
export async function withOwnStore(
  store: AnalyticsStore,
  build: (store: AnalyticsStore) => Promise<ServiceModule>,
): Promise<ServiceModule> {
  let module: ServiceModule;
  try {
    module = await build(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    ...module,
    async stop() {
      await module.stop();
      await store.close();
    },
  };
}

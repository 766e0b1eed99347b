/**
 * Test support: several service modules hosted as one, so that a harness runs a service with
 * the real peers it calls (the Order service with the Product service) on the harness's store
 * and bus, as the embedded platform composes them. Started in the given order (peers first),
 * stopped in reverse.
 */
import type { ServiceModule } from "../server/service-module.js";

export function composeModules(...modules: readonly ServiceModule[]): ServiceModule {
  return {
    name: modules.map((module) => module.name).join("+"),
    services: modules.flatMap((module) => module.services),
    register(router) {
      for (const module of modules) module.register(router);
    },
    async start() {
      for (const module of modules) await module.start();
    },
    async stop() {
      for (const module of [...modules].reverse()) await module.stop();
    },
  };
}

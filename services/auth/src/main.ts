/** The Auth service as its own process (docs/architecture.md §4). */
import { runServiceProcess } from "@commerce/runtime/server/service-process.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { readAuthSettings } from "./auth-settings.js";
import { buildAuthService } from "./auth-module.js";

runServiceProcess(
  {
    name: "auth",
    peers: [{ urlVariable: "USER_SERVICE_URL", services: [DirectoryService] }],
    readSettings: readAuthSettings,
    build: buildAuthService,
  },
  process.env,
);

/** The Auth service as its own process (ADR 0018). */
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { readAuthSettings } from "./auth-settings.js";
import { buildAuthService } from "./auth-module.js";

runServiceProcess(
  {
    name: "auth",
    peers: [{ address: peerAddresses.USER_SERVICE_URL, services: [DirectoryService] }],
    readSettings: readAuthSettings,
    build: buildAuthService,
  },
  process.env,
);

/** The User service as its own process (ADR 0018). */
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { buildUserService } from "./user-module.js";

runServiceProcess(
  {
    name: "user",
    peers: [{ address: peerAddresses.AUTH_SERVICE_URL, services: [AccountService] }],
    readSettings: () => undefined,
    build: (ctx) => buildUserService(ctx),
  },
  process.env,
);

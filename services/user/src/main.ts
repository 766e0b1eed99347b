/** The User service as its own process (docs/architecture.md §4). */
import { runServiceProcess } from "@commerce/runtime/server/service-process.js";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { buildUserService } from "./user-module.js";

runServiceProcess(
  {
    name: "user",
    peers: [{ urlVariable: "AUTH_SERVICE_URL", services: [AccountService] }],
    readSettings: () => undefined,
    build: (ctx) => buildUserService(ctx),
  },
  process.env,
);

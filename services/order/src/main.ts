/** The Order service as its own process (ADR 0018). */
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { buildOrderService } from "./order-module.js";

runServiceProcess(
  {
    name: "order",
    peers: [
      { address: peerAddresses.PRODUCT_SERVICE_URL, services: [InventoryService] },
      { address: peerAddresses.AUTH_SERVICE_URL, services: [AccountService] },
    ],
    readSettings: () => undefined,
    build: (ctx) => buildOrderService(ctx),
  },
  process.env,
);

/** The Order service as its own process (ADR 0018). */
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { buildOrderService } from "./order-module.js";

runServiceProcess(
  {
    name: "order",
    peers: [{ address: peerAddresses.PRODUCT_SERVICE_URL, services: [InventoryService] }],
    readSettings: () => undefined,
    build: (ctx) => buildOrderService(ctx),
  },
  process.env,
);

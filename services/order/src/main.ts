/** The Order service as its own process (ADR 0018). */
import { peerAddresses } from "@commerce/runtime/server/peer-addresses.js";
import { runServiceProcess } from "@commerce/runtime/server/service-process.js";
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

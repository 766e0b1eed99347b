/** The Order service as its own process (docs/architecture.md §4). */
import { runServiceProcess } from "@commerce/runtime/server/service-process.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { buildOrderService } from "./order-module.js";

runServiceProcess(
  {
    name: "order",
    peers: [{ urlVariable: "PRODUCT_SERVICE_URL", services: [InventoryService] }],
    readSettings: () => undefined,
    build: (ctx) => buildOrderService(ctx),
  },
  process.env,
);

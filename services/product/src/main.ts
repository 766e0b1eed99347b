/** The Product service as its own process (docs/architecture.md §4). */
import { runServiceProcess } from "@commerce/runtime/server/service-process.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { readProductSettings } from "./product-settings.js";
import { buildProductService } from "./product-module.js";

runServiceProcess(
  {
    name: "product",
    peers: [{ urlVariable: "ORDER_SERVICE_URL", services: [PayableOrderService] }],
    readSettings: readProductSettings,
    build: buildProductService,
  },
  process.env,
);

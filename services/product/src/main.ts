/** The Product service as its own process (ADR 0018). */
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { readProductSettings } from "./product-settings.js";
import { buildProductService } from "./product-module.js";

runServiceProcess(
  {
    name: "product",
    peers: [{ address: peerAddresses.ORDER_SERVICE_URL, services: [PayableOrderService] }],
    readSettings: readProductSettings,
    build: buildProductService,
  },
  process.env,
);

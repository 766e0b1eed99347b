/** The Payment service as its own process (docs/architecture.md §4). */
import { runServiceProcess } from "@commerce/runtime/server/service-process.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { readPaymentSettings } from "./payment-settings.js";
import { buildPaymentService } from "./payment-module.js";

runServiceProcess(
  {
    name: "payment",
    peers: [{ urlVariable: "ORDER_SERVICE_URL", services: [PayableOrderService] }],
    readSettings: readPaymentSettings,
    build: (ctx, settings) => buildPaymentService(ctx, settings),
  },
  process.env,
);

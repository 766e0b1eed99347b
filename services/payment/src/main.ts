/** The Payment service as its own process (ADR 0018). */
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { readPaymentSettings } from "./payment-settings.js";
import { buildPaymentService } from "./payment-module.js";

runServiceProcess(
  {
    name: "payment",
    peers: [{ address: peerAddresses.ORDER_SERVICE_URL, services: [PayableOrderService] }],
    readSettings: readPaymentSettings,
    build: (ctx, settings) => buildPaymentService(ctx, settings),
  },
  process.env,
);

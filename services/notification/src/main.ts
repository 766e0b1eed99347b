/** The Notification service as its own process (ADR 0018). */
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { readPaymentCurrency } from "@commerce/runtime/money";
import { buildNotificationService } from "./notification-module.js";

runServiceProcess(
  {
    name: "notification",
    peers: [
      { address: peerAddresses.AUTH_SERVICE_URL, services: [AccountService] },
      { address: peerAddresses.ORDER_SERVICE_URL, services: [PayableOrderService] },
    ],
    readSettings: (env) => ({ currency: readPaymentCurrency(env) }),
    build: (ctx, settings) => buildNotificationService(ctx, settings),
  },
  process.env,
);

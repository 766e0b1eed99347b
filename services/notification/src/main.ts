/** The Notification service as its own process (ADR 0018). */
import { runServiceProcess } from "@commerce/runtime/server/service-process.js";
import { readPaymentCurrency } from "@commerce/runtime/money/currency-setting.js";
import { buildNotificationService } from "./notification-module.js";

runServiceProcess(
  {
    name: "notification",
    peers: [],
    readSettings: (env) => ({ currency: readPaymentCurrency(env) }),
    build: (ctx, settings) => buildNotificationService(ctx, settings),
  },
  process.env,
);

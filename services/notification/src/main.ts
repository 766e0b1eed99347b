/** The Notification service as its own process (ADR 0018). */
import { runServiceProcess } from "@commerce/runtime/server";
import { readPaymentCurrency } from "@commerce/runtime/money";
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

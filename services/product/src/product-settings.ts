/**
 * The Product service's own settings (docs/configuration.md). Read by the Product process and
 * by the embedded platform.
 */
import { type EnvReader, declareSettings } from "@commerce/runtime/config";
import type { ProductOptions } from "./product-module.js";

export const productSettings = declareSettings({
  RESERVATION_TTL: {
    default: "2m",
    meaning: "How long stock stays reserved for an order that is never written (1s to 1d)",
    readBy: ["embedded", "product"],
  },
});

/**
 * `RESERVATION_TTL`: how long a reservation holds stock for an order that was never written
 * before the sweeper gives it back (default 2 minutes). The Product service owns the number and
 * tells the Order service in every ReserveStock answer, so the two cannot disagree.
 */
export function readProductSettings(env: EnvReader): ProductOptions {
  const seconds = env.duration(
    productSettings.RESERVATION_TTL,
    1,
    86_400,
    'from 1s to 1d such as "90", "2m"',
  );
  return { reservationTtlMs: seconds * 1000 };
}

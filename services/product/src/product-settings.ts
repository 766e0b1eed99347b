/**
 * The Product service's own settings (README "Configuration"). Read by the Product process and
 * by the embedded platform.
 */
import type { EnvReader } from "@commerce/runtime/config/env-reader.js";
import type { ProductOptions } from "./product-module.js";

/**
 * `RESERVATION_TTL`: how long a reservation holds stock for an order that was never written
 * before the sweeper gives it back (default 2 minutes). The Product service owns the number and
 * tells the Order service in every ReserveStock answer, so the two cannot disagree.
 */
export function readProductSettings(env: EnvReader): ProductOptions {
  const seconds = env.duration("RESERVATION_TTL", "2m", 1, 86_400, 'from 1s to 1d such as "90", "2m"');
  return { reservationTtlMs: seconds * 1000 };
}

/** `@commerce/runtime/money`: amounts in minor units, the currency and the payment gateway settings. */
export * from "./currency-setting.js";
export * from "./gateway-setting.js";
export * from "./minor-units.js";

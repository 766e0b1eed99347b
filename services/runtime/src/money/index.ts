/** `@commerce/runtime/money`: amounts in minor units and the currency setting. */
export * from "./currency-setting.js";
export * from "./minor-units.js";

/**
 * `@commerce/product`: the Product service's module and its settings; the process starts by path
 * (main.ts).
 */
export { buildProductService, type ProductOptions } from "./product-module.js";
export { productSettings, readProductSettings } from "./product-settings.js";

/**
 * `@commerce/auth`: the Auth service's module and its settings; the process starts by path
 * (main.ts).
 */
export { buildAuthService, type AuthOptions } from "./auth-module.js";
export { authSettings, readAuthSettings, type AuthSettings } from "./auth-settings.js";

/** `@commerce/user`: the User service's module; the process starts by path (main.ts). */
export { buildUserService } from "./user-module.js";

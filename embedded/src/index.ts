/**
 * `@commerce/embedded`: what other packages use of the platform in one process: its settings
 * (for the configuration table) and how it makes up local secrets (the local cluster makes them
 * the same way). The platform itself starts by path (main.ts, `npm start`).
 */
export { embeddedSettings, loadEmbeddedConfig, type EmbeddedConfig } from "./embedded-config.js";
export {
  fileSecrets,
  generateHeaderSecret,
  generateJwtSecret,
  generatePassword,
  type SecretSource,
} from "./local-secrets.js";

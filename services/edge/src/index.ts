/**
 * `@commerce/edge`: the local REST edge (`npm start`) and what it is built with: the token
 * verifier, the public site, the CORS settings. What the Envoy edge and the OpenAPI document
 * share with it is `@commerce/edge/rest-mapping`.
 */
export { createEdge, type Edge, type EdgeOptions } from "./edge.js";
export { createTokenVerifier, type TokenVerifier } from "./token-verifier.js";
export {
  createPublicSite,
  publicSitePaths,
  readPublicSiteFiles,
  type PublicSite,
  type SiteFile,
} from "./public-site.js";
export {
  corsExposedHeaders,
  corsRequestHeaders,
  corsSettingNames,
  corsSettings,
  corsSettingsOf,
  noCors,
  readCorsSettings,
  type CorsSettingName,
  type CorsSettings,
} from "./cors-settings.js";

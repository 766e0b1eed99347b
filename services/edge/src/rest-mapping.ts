/**
 * `@commerce/edge/rest-mapping`: how REST maps onto the contract's RPCs, written once for both
 * edges and the OpenAPI document: the route table, path templates, body binding, number
 * notations, the JSON depth limit and the error body.
 */
export { createRouteTable, type HttpVerb, type Route, type RouteTable } from "./route-table.js";
export { parsePathTemplate, type TemplateSegment } from "./path-template.js";
export { bodyBinding, type BodyBinding } from "./body-binding.js";
export {
  fieldNotation,
  numberKindOf,
  numberKindOfField,
  numberNotations,
  parameterNotation,
  type NumberKind,
} from "./plain-decimal.js";
export { maxJsonDepth, tooDeepMessage } from "./json-depth.js";
export { errorBodyFromConnectError } from "./error-response.js";

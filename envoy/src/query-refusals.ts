/**
 * A QUERY request without a Content-Type, which Envoy refuses before routing since 1.40 (RFC
 * 10008 says such a request must fail; the runtime guard that reverted it is gone), answered as
 * every other method a path does not bind: 405 with Allow, in the one error body, as the local
 * edge answers it. No route binds QUERY, so the refusal is only ever about the method. One
 * local-reply mapper per path template, in the routes' own match order.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Route } from "@commerce/edge/rest-mapping";
import { celFilter, mapper, statusIs } from "./local-replies.js";
import { methodNotAllowedBody, templatesInMatchOrder } from "./rest-routes.js";

export function queryMethodRefusals(routes: readonly Route[]): JsonObject[] {
  return templatesInMatchOrder(routes).map(({ regex, allow }) =>
    mapper(
      {
        and_filter: {
          filters: [
            statusIs(400),
            celFilter(
              `response.code_details == "query_missing_content_type" && ` +
                `request.path.matches(${JSON.stringify(`^${regex}(?:\\?.*)?$`)})`,
            ),
          ],
        },
      },
      methodNotAllowedBody(allow),
      {
        status_code: 405,
        headers_to_add: [
          { header: { key: "allow", value: allow.join(", ") }, append_action: "OVERWRITE_IF_EXISTS_OR_ADD" },
        ],
      },
    ),
  );
}

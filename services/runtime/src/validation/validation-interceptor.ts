import { createRegistry } from "@bufbuild/protobuf";
import type { Path } from "@bufbuild/protobuf/reflect";
import { createValidator } from "@bufbuild/protovalidate";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { file_commerce_options_v1_text } from "../../gen/commerce/options/v1/text_pb.js";

/**
 * Enforces the `buf.validate` rules written in proto/ on every unary request, in one place, so
 * that handlers only see valid input. Violations go back as INVALID_ARGUMENT with the JSON field
 * names clients sent (`fullName`, not `full_name`). The registry holds the contract's own
 * predefined rules (`commerce.options.v1.single_line`, ...), which protovalidate applies only
 * when it knows their extensions.
 */
export function createValidationInterceptor(): Interceptor {
  const validator = createValidator({ registry: createRegistry(file_commerce_options_v1_text) });
  return (next) => async (req) => {
    if (!req.stream) {
      const result = validator.validate(req.method.input, req.message);
      if (result.kind === "invalid") {
        const details = result.error.violations.map((v) => `${jsonPath(v.field)}: ${v.message}`);
        throw new ConnectError(details.join("; "), Code.InvalidArgument);
      }
      if (result.kind === "error")
        throw new ConnectError("internal error", Code.Internal, undefined, undefined, result.error);
    }
    return next(req);
  };
}

function jsonPath(path: Path): string {
  let out = "";
  for (const item of path) {
    switch (item.kind) {
      case "field":
        out += (out === "" ? "" : ".") + item.jsonName;
        break;
      case "list_sub":
        out += `[${item.index}]`;
        break;
      case "map_sub":
        out += `[${String(item.key)}]`;
        break;
      case "oneof":
        out += (out === "" ? "" : ".") + item.localName;
        break;
      case "extension":
        out += `${out === "" ? "" : "."}[${item.typeName}]`;
    }
  }
  return out === "" ? "request" : out;
}

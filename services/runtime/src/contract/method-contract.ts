/**
 * Reads the custom method option `(commerce.options.v1.contract)` — the single place where a
 * method's access rule, success status, bare-array field and own error statuses are written
 * (proto/commerce/options).
 * Both the edge and the services' access interceptor read it through here.
 */
import { getOption, type DescMethod } from "@bufbuild/protobuf";
import { Access, contract } from "../../gen/commerce/options/v1/options_pb.js";

export { Access };

export interface MethodContract {
  readonly access: Access;
  /** 200, 201 or 204. */
  readonly successStatus: number;
  /** Name of the repeated response field that is the JSON response, or undefined. */
  readonly unwrap: string | undefined;
  /** The HTTP statuses of the method's own refusals (404, 403, 409, 429), for its description. */
  readonly errorStatuses: readonly number[];
  /** The request header that carries a signature of the raw body, for a signed public method. */
  readonly signatureHeader: string | undefined;
}

const cache = new WeakMap<DescMethod, MethodContract>();

export function methodContract(method: DescMethod): MethodContract {
  let found = cache.get(method);
  if (found === undefined) {
    const option = getOption(method, contract);
    if (option.access === Access.UNSPECIFIED) {
      throw new Error(
        `${method.parent.typeName}.${method.name} has no (commerce.options.v1.contract).access`,
      );
    }
    found = {
      access: option.access,
      successStatus: option.successStatus === 0 ? 200 : option.successStatus,
      unwrap: option.unwrap === "" ? undefined : option.unwrap,
      errorStatuses: option.errorStatuses,
      signatureHeader: option.signatureHeader === "" ? undefined : option.signatureHeader,
    };
    cache.set(method, found);
  }
  return found;
}

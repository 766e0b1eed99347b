import { Code, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../logging/logger.js";
import { toConnectError } from "./to-connect-error.js";

/**
 * The outermost server interceptor: whatever a handler throws leaves as a ConnectError with a
 * client-safe message (see `toConnectError`). Failures the client did not cause are logged here
 * with their cause, once.
 */
export function createErrorInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      const connectError = toConnectError(error);
      if (
        connectError.code === Code.Internal ||
        connectError.code === Code.Unknown ||
        connectError.code === Code.Unavailable
      ) {
        logger.error(
          {
            err: connectError.cause ?? error,
            rpc: `${req.service.typeName}/${req.method.name}`,
            // The call's trace ids (logging/logger.ts), when it is traced.
            signal: req.signal,
          },
          "request failed",
        );
      }
      throw connectError;
    }
  };
}

/**
 * A stand-in for the services behind Envoy: real Connect handlers of the Auth, User and Payment
 * APIs on an h2c gRPC port (with the standard health service Envoy checks), which record every
 * call with the headers it arrived with. Lets a test see exactly what Envoy sends upstream.
 *
 * Test switches, as request headers: `x-test-delay-ms` delays GetMe, `x-test-code` makes it
 * fail with that gRPC code (and a message that must never reach the client for server faults).
 */
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { AuthService, LoginResponseSchema } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { MessageResponseSchema } from "@commerce/runtime/gen/commerce/common/v1/message_pb.js";
import { PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import { ProfileSchema, UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { registerHealthService, createDualProtocolServer } from "@commerce/runtime/server";

export interface RecordedCall {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The HttpBody of a payment callback, as it arrived. */
  readonly httpBody?: { readonly contentType: string; readonly data: string };
}

export interface RecordingUpstream {
  readonly url: string;
  readonly calls: RecordedCall[];
  close(): Promise<void>;
}

/** The message a failing GetMe carries: internal detail that a 5xx answer must not show. */
export const internalDetail = "connection to db-7 refused (password=hunter2)";

const codesByNumber = new Map<number, Code>(
  Object.values(Code)
    .filter((c): c is Code => typeof c === "number")
    .map((c) => [c, c]),
);

function codeOf(value: number): Code {
  const code = codesByNumber.get(value);
  if (code === undefined) throw new Error(`no gRPC code ${value}`);
  return code;
}

function headersOf(ctx: HandlerContext): Record<string, string> {
  return Object.fromEntries(ctx.requestHeader.entries());
}

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const calls: RecordedCall[] = [];
  const handler = connectNodeAdapter({
    routes(router) {
      router.service(AuthService, {
        login(_request, ctx) {
          calls.push({ method: "Login", headers: headersOf(ctx) });
          return create(LoginResponseSchema, { token: "t", type: "Bearer" });
        },
        register(_request, ctx) {
          calls.push({ method: "Register", headers: headersOf(ctx) });
          return create(MessageResponseSchema, { message: "registered" });
        },
      });
      router.service(UserService, {
        async getMe(_request, ctx) {
          calls.push({ method: "GetMe", headers: headersOf(ctx) });
          const delayMs = Number(ctx.requestHeader.get("x-test-delay-ms") ?? 0);
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          const code = ctx.requestHeader.get("x-test-code");
          if (code !== null) throw new ConnectError(internalDetail, codeOf(Number(code)));
          return create(ProfileSchema, { id: 1, email: ctx.requestHeader.get("x-user-email") ?? "" });
        },
      });
      router.service(PaymentService, {
        handleCallback(request, ctx) {
          calls.push({
            method: "HandleCallback",
            headers: headersOf(ctx),
            httpBody: {
              contentType: request.body?.contentType ?? "",
              data: Buffer.from(request.body?.data ?? new Uint8Array()).toString("utf8"),
            },
          });
          return create(MessageResponseSchema, { message: "callback processed" });
        },
      });
      registerHealthService(
        router,
        [AuthService.typeName, UserService.typeName, PaymentService.typeName],
        () => true,
      );
    },
  });
  const server = createDualProtocolServer(handler);
  const port = await server.listen(0, "127.0.0.1");
  return { url: `http://127.0.0.1:${port}`, calls, close: () => server.close() };
}

export { Code };

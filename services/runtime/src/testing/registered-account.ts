/**
 * Test support: an account registered through a harness hosting the Auth service, and its user
 * id, as its token names it (`uid`).
 */
import { AuthService } from "../../gen/commerce/auth/v1/auth_pb.js";
import type { ServiceHarness } from "./service-harness.js";

export async function registerAccount(
  harness: ServiceHarness,
  email: string,
  password = "pass-word-1",
): Promise<number> {
  const auth = harness.client(AuthService);
  await auth.register({ fullName: "Asha", email, phoneNo: "+919876543210", password });
  const { token } = await auth.login({ email, password });
  const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as {
    uid: number;
  };
  return claims.uid;
}

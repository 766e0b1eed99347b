/** Logging in: the token, then the profile it belongs to (its role decides what the app shows). */
import { api, outcomeOf, type Outcome } from "../api/commerce.js";
import { sessionStore, type Profile } from "../api/session.js";

export async function signIn(email: string, password: string): Promise<Outcome<Profile>> {
  // Whoever was signed in before is not: their token must not ride along on these calls.
  sessionStore.signOut();
  const login = await outcomeOf(api.POST("/api/auth/login", { body: { email, password } }));
  if (!login.ok) return login;
  const { token } = login.data;
  const me = await outcomeOf(api.GET("/api/users/me", { headers: { authorization: `Bearer ${token}` } }));
  if (me.ok) sessionStore.signIn({ token, profile: me.data });
  return me;
}

/**
 * The app's one way to the platform: the typed client (@commerce/client), on this page's own
 * origin, with the signed-in person's token. Calls come back as an Outcome: the data, or a
 * Problem to show (problem.ts).
 */
import { createCommerceClient, type CommerceError } from "@commerce/client";
import { problemFromError, unreachable, type Problem } from "./problem.js";
import { sessionStore } from "./session.js";

export type Outcome<T> =
  { readonly ok: true; readonly data: T } | { readonly ok: false; readonly problem: Problem };

export const api = createCommerceClient({
  baseUrl: window.location.origin,
  token: () => sessionStore.token(),
});

// A 401 to a call that carried a token: that token no longer opens anything.
api.use({
  onResponse({ request, response }) {
    const sent = request.headers.get("authorization");
    if (response.status === 401 && sent !== null) sessionStore.expire(sent.replace(/^Bearer /, ""));
    return undefined;
  },
});

/** What the client answers to one call: its data, or the API's error. */
export type Answer<T> =
  { data: T; error?: never; response: Response } | { data?: never; error: CommerceError; response: Response };

/** The call's data, or what went wrong in words. An aborted call rejects (nobody is waiting). */
export async function outcomeOf<T>(call: Promise<Answer<T>>): Promise<Outcome<T>> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    return { ok: false, problem: unreachable };
  }
  if (answer.error !== undefined) return { ok: false, problem: problemFromError(answer.error) };
  return { ok: true, data: answer.data };
}

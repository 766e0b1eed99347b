/**
 * Who is signed in: the token `POST /api/auth/login` answered and the profile it belongs to.
 *
 * The token lives in memory and in this tab's sessionStorage (ADR 0089: a reload keeps
 * the person signed in, closing the tab signs them out, other tabs and later visits never see
 * it; the API takes bearer tokens only, so there is no cookie to lean on). A call answered 401
 * ends the session (`expire`): the app sends the person back to log in, saying why.
 */
import { useSyncExternalStore } from "react";
import type { components } from "@commerce/client";

export type Profile = components["schemas"]["Profile"];

export interface Session {
  readonly token: string;
  readonly profile: Profile;
}

export interface SessionState {
  readonly session: Session | undefined;
  /** True once a session ended because the API no longer accepted its token. */
  readonly expired: boolean;
}

const storageKey = "commerce.session";

function restore(): Session | undefined {
  try {
    const saved = sessionStorage.getItem(storageKey);
    if (saved === null) return undefined;
    const parsed = JSON.parse(saved) as Partial<Session>;
    return typeof parsed.token === "string" && typeof parsed.profile === "object"
      ? (parsed as Session)
      : undefined;
  } catch {
    // Storage refused (private mode, a policy): the session lives in memory only.
    return undefined;
  }
}

let state: SessionState = { session: restore(), expired: false };
const listeners = new Set<() => void>();

function update(next: SessionState): void {
  state = next;
  try {
    if (next.session === undefined) sessionStorage.removeItem(storageKey);
    else sessionStorage.setItem(storageKey, JSON.stringify(next.session));
  } catch {
    // As in restore: memory only.
  }
  for (const listener of listeners) listener();
}

export const sessionStore = {
  get: (): SessionState => state,
  token: (): string | undefined => state.session?.token,
  signIn(session: Session): void {
    update({ session, expired: false });
  },
  /** The person's own profile changed (their name, their phone). */
  updateProfile(profile: Profile): void {
    if (state.session !== undefined) update({ session: { ...state.session, profile }, expired: false });
  },
  signOut(): void {
    update({ session: undefined, expired: false });
  },
  /** The API answered 401 to this token: the session is over. */
  expire(token: string): void {
    if (state.session?.token === token) update({ session: undefined, expired: true });
  },
  subscribe: (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useSession(): SessionState {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.get);
}

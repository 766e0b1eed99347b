/**
 * An error the person must see, in words they understand: what went wrong (`title`) and, when
 * the API said more, its own message (`detail`: which field, which product). Built from the
 * API's JSON error body (`{status, code, message}`, the same from both edges), or from a call
 * that never got an answer.
 */
import type { CommerceError } from "@commerce/client";

export interface Problem {
  /** The HTTP status, 0 when no answer came. */
  readonly status: number;
  /** The API's code (NOT_FOUND, ALREADY_EXISTS, ...), or UNREACHABLE when no answer came. */
  readonly code: string;
  readonly title: string;
  readonly detail?: string;
}

/** What each kind of refusal means to a person; the API's message says the particulars. */
function titleOf(error: CommerceError): string {
  switch (error.status) {
    case 400:
      return "That was not accepted.";
    case 401:
      return "Please log in to continue.";
    case 403:
      return "Your account is not allowed to do this.";
    case 404:
      return "We could not find it.";
    case 409:
      // The API's conflicts: a duplicate, a move its state does not allow, a change meanwhile.
      return "That clashes with how things stand now.";
    case 413:
      return "That is too large to send.";
    case 429:
      return "Too many requests right now: please wait a moment and try again.";
    default:
      return error.status >= 500
        ? "The shop is having trouble right now: please try again in a moment."
        : "Something went wrong.";
  }
}

/** The API's message as a sentence: first letter up, a full stop at the end. */
function sentence(message: string): string {
  const trimmed = message.trim();
  if (trimmed === "") return "";
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export function problemFromError(error: CommerceError): Problem {
  // A server error's message is for its operators; a person is told to retry.
  const detail = error.status >= 500 ? "" : sentence(error.message);
  return {
    status: error.status,
    code: error.code,
    title: titleOf(error),
    ...(detail === "" ? {} : { detail }),
  };
}

export const unreachable: Problem = {
  status: 0,
  code: "UNREACHABLE",
  title: "We could not reach the shop.",
  detail: "Check your connection, then try again.",
};

/**
 * A JSON client of the embedded platform's edge for its own specs (tracing, metrics): one
 * request with an optional bearer token, body and extra headers; the answer's status and parsed
 * body. `baseUrl` is read per call, as the platform starts in the test file's `before`.
 */
import { expect } from "chai";

export interface EdgeAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface EdgeRequest {
  readonly token?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export interface EdgeClient {
  readonly call: (method: string, path: string, options?: EdgeRequest) => Promise<EdgeAnswer>;
  /** Logs in (200 expected) and returns the token. */
  readonly login: (email: string, password: string) => Promise<string>;
}

export function edgeClient(baseUrl: () => string): EdgeClient {
  async function call(method: string, path: string, options: EdgeRequest = {}): Promise<EdgeAnswer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
  }
  return {
    call,
    login: async (email, password) => {
      const answer = await call("POST", "/api/auth/login", { body: { email, password } });
      expect(answer.status).to.equal(200);
      return (answer.body as { token: string }).token;
    },
  };
}

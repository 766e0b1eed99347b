/**
 * A small HTTP client for the black-box suites. Everything goes through the edge at BASE_URL,
 * so the same suites run against the local edge or an Envoy in a cluster.
 */
import { acceptanceEnvironment } from "./environment.js";

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: unknown;
  readonly text: string;
}

export interface RequestOptions {
  readonly token?: string;
  readonly body?: unknown;
  /** A raw body sent as is (with the given content type), instead of JSON. */
  readonly rawBody?: string | Buffer;
  readonly headers?: Record<string, string>;
}

export async function api(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers = new Headers(options.headers);
  if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`);
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const response = await fetch(new URL(path, acceptanceEnvironment().baseUrl), {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * A small HTTP client for the black-box suites. Everything goes through the edge at BASE_URL,
 * so the same suites run against the local edge or an Envoy in a cluster.
 */
import { request } from "node:http";
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
  /**
   * The client's own address (a loopback one such as 127.0.0.2, which Linux lets a socket bind
   * to): the request goes from there, as from another client (the login throttle keys on it).
   */
  readonly localAddress?: string;
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
  const url = new URL(path, acceptanceEnvironment().baseUrl);
  const response =
    options.localAddress === undefined
      ? await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) })
      : await sendFrom(options.localAddress, url, method, headers, body);
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

/** The request over node:http from `localAddress`, answered as a fetch Response. */
function sendFrom(
  localAddress: string,
  url: URL,
  method: string,
  headers: Headers,
  body: string | Buffer | undefined,
): Promise<Response> {
  const framing = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, localAddress, headers: { ...Object.fromEntries(headers), ...framing } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("end", () => {
          const answered = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const each of Array.isArray(value) ? value : [value ?? ""]) answered.append(name, each);
          }
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks);
          resolve(
            new Response(status === 204 || status === 304 ? null : text, { status, headers: answered }),
          );
        });
        res.once("error", reject);
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

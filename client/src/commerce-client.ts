/**
 * `@commerce/client`: typed calls for every operation of the platform's REST API, for a
 * storefront or a back-office app, in the browser or in Node (no Node-only import).
 *
 * The types are generated from the API's OpenAPI document by `npm run generate`
 * (scripts/codegen/client-types.ts → client/gen/openapi.ts); the calls are openapi-fetch's, so
 * the path, its parameters, the request body, each success body and each error body are checked
 * against the document at compile time:
 *
 *     const shop = createCommerceClient({ baseUrl: "https://shop.example", token });
 *     const { data, error } = await shop.GET("/api/orders/{orderId}", {
 *       params: { path: { orderId } },
 *     });
 *     if (error) console.log(error.status, error.code, error.message);
 *     else console.log(data.status);
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, paths } from "../gen/openapi.js";

export type { components, operations, paths } from "../gen/openapi.js";

/**
 * The body of every error answer (the document's `Error` schema): the HTTP status repeated, the
 * gRPC status name (`NOT_FOUND`, `ALREADY_EXISTS`, ...) to branch on, and a message for people.
 * Each call's `error` is narrower: the statuses and codes the document lists for that operation.
 */
export type CommerceError = components["schemas"]["Error"];

/** A client of the whole REST API; `GET`, `POST`, `PUT` and `DELETE` take the document's paths. */
export type CommerceClient = Client<paths>;

export interface CommerceClientOptions {
  /** Where the API is served, without `/api`: the edge's origin, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /**
   * The bearer token `POST /api/auth/login` answered, sent on every call. A function is asked
   * before each call, so one client follows a sign-in or sign-out; undefined sends none.
   */
  readonly token?: string | (() => string | undefined);
  /** The fetch to call (default: the global one), e.g. one that adds a timeout or a trace. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

export function createCommerceClient(options: CommerceClientOptions): CommerceClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const { token } = options;
  if (token !== undefined) client.use(bearerToken(token));
  client.use(errorBody);
  return client;
}

function bearerToken(token: string | (() => string | undefined)): Middleware {
  return {
    onRequest({ request }) {
      const value = typeof token === "function" ? token() : token;
      if (value !== undefined) request.headers.set("authorization", `Bearer ${value}`);
      return request;
    },
  };
}

/**
 * Keeps the promise of `CommerceError`: both edges answer every error with that body, but an
 * answer from something in between (a proxy's 502 page, an empty 503) would otherwise reach the
 * caller as a string or as no error at all. Such an answer becomes `{ status, code: "UNKNOWN",
 * message }`, `UNKNOWN` being the gRPC name for an error whose cause is not known.
 */
const errorBody: Middleware = {
  async onResponse({ response }) {
    if (response.status < 400) return undefined;
    if (isCommerceError(await readJson(response.clone()))) return undefined;
    const body: CommerceError = {
      status: response.status,
      code: "UNKNOWN",
      message: `HTTP ${response.status}${response.statusText === "" ? "" : ` ${response.statusText}`}`,
    };
    const headers = new Headers(response.headers);
    headers.set("content-type", "application/json");
    headers.delete("content-length");
    return new Response(JSON.stringify(body), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  },
};

async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

function isCommerceError(body: unknown): body is CommerceError {
  if (typeof body !== "object" || body === null) return false;
  const { status, code, message } = body as Partial<Record<keyof CommerceError, unknown>>;
  return typeof status === "number" && typeof code === "string" && typeof message === "string";
}

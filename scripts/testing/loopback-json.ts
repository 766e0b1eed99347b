/**
 * One JSON request to a platform under test or bench (a loopback base URL), with an optional
 * bearer token: its status and parsed body. `jsonOk` fails on any status other than 2xx.
 */
export interface JsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

export async function sendJson(
  baseUrl: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  const response = await fetch(new URL(path, baseUrl), {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

export async function jsonOk(
  baseUrl: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<unknown> {
  const answer = await sendJson(baseUrl, method, path, token, body);
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

/**
 * A minimal client of the Kubernetes API for our scripts and tests: JSON over HTTPS with the
 * admin client certificate, no library. Responses keep the server's `Warning` headers, which
 * tests treat as failures (a field the server dropped is reported only there).
 */
import { request } from "node:https";

/** Where the API server is and how to authenticate to it. */
export interface KubeAccess {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** PEM contents. */
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export interface KubeResponse {
  readonly status: number;
  /** The parsed JSON body (undefined when it is not JSON). */
  readonly body: unknown;
  readonly text: string;
  readonly warnings: readonly string[];
}

/** Sends one request; `body` is sent as JSON, or as a merge patch for PATCH. */
export function kubeRequest(
  access: KubeAccess,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<KubeResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const url = new URL(path, access.server);
    const call = request(
      url,
      {
        method,
        ca: access.ca,
        cert: access.cert,
        key: access.key,
        agent: false,
        timeout: timeoutMs,
        headers: {
          accept: "application/json",
          ...(payload === undefined
            ? {}
            : { "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json" }),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        response.once("end", () => {
          const warning = response.headers["warning"];
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({
            status: response.statusCode ?? 0,
            body: parsed,
            text,
            warnings: warning === undefined ? [] : [warning].flat(),
          });
        });
      },
    );
    call.once("timeout", () => call.destroy(new Error(`${method} ${url.href} timed out`)));
    call.once("error", reject);
    call.end(payload);
  });
}

/** A kubeconfig for `access`, as JSON (which every YAML reader accepts). */
export function kubeconfigFor(access: KubeAccess, name: string): string {
  const base64 = (pem: string) => Buffer.from(pem).toString("base64");
  return JSON.stringify(
    {
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name, cluster: { server: access.server, "certificate-authority-data": base64(access.ca) } },
      ],
      users: [
        {
          name: "admin",
          user: { "client-certificate-data": base64(access.cert), "client-key-data": base64(access.key) },
        },
      ],
      contexts: [{ name, context: { cluster: name, user: "admin", namespace: "default" } }],
      "current-context": name,
    },
    null,
    2,
  );
}

import { expect } from "chai";
import type { IncomingHttpHeaders } from "node:http";
import { createNodeRequestHeaders } from "./node-request-headers.js";

/** What Node parsed from an HTTP/2 request: pseudo-headers, a repeated header, a cookie. */
const parsed: IncomingHttpHeaders = {
  ":path": "/commerce.product.v1.ProductService/GetProduct",
  ":method": "POST",
  "content-type": "application/grpc",
  "x-commerce-edge-auth": "secret",
  "x-forwarded-for": "192.0.2.2, 192.0.2.3",
  "set-cookie": ["a=1", "b=2"],
};

/** The eager copy the lazy headers stand for. */
function eager(source: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [key, value] of Object.entries(source)) {
    if (key.startsWith(":")) continue;
    if (typeof value === "string") out.append(key, value);
    else if (Array.isArray(value)) for (const item of value) out.append(key, item);
  }
  return out;
}

describe("createNodeRequestHeaders", () => {
  it("reads what the eager copy reads, in any case, without pseudo-headers", () => {
    const headers = createNodeRequestHeaders(parsed);
    const copy = eager(parsed);
    for (const name of [
      "content-type",
      "Content-Type",
      "X-COMMERCE-EDGE-AUTH",
      "x-forwarded-for",
      "set-cookie",
      "traceparent",
    ]) {
      expect(headers.get(name), name).to.equal(copy.get(name));
      expect(headers.has(name), name).to.equal(copy.has(name));
    }
    expect(headers.get("set-cookie")).to.equal("a=1, b=2");
    expect(headers.get("traceparent")).to.equal(null);
  });

  it("refuses an invalid name as Headers does, pseudo-headers included", () => {
    const headers = createNodeRequestHeaders(parsed);
    expect(() => headers.get(":path")).to.throw(TypeError);
    expect(() => headers.has("bad name")).to.throw(TypeError);
  });

  it("is a Headers, and iterates the same entries as the eager copy", () => {
    const headers = createNodeRequestHeaders(parsed);
    expect(headers).to.be.instanceOf(Headers);
    expect([...headers]).to.deep.equal([...eager(parsed)]);
    expect([...new Headers(headers)]).to.deep.equal([...eager(parsed)]);
    expect(headers.getSetCookie()).to.deep.equal(["a=1", "b=2"]);
    const seen: string[] = [];
    headers.forEach((value, key, parent) => {
      expect(parent).to.equal(headers);
      seen.push(`${key}=${value}`);
    });
    expect(seen).to.deep.equal([...eager(parsed)].map(([key, value]) => `${key}=${value}`));
  });

  it("answers from its copy once changed, and leaves Node's object as it was", () => {
    const source = { ...parsed };
    const headers = createNodeRequestHeaders(source);
    headers.set("content-type", "application/json");
    headers.delete("x-commerce-edge-auth");
    headers.append("x-forwarded-for", "192.0.2.4");
    expect(headers.get("content-type")).to.equal("application/json");
    expect(headers.has("x-commerce-edge-auth")).to.equal(false);
    expect(headers.get("x-forwarded-for")).to.equal("192.0.2.2, 192.0.2.3, 192.0.2.4");
    expect(source).to.deep.equal(parsed);
  });
});

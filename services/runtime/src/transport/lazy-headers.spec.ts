import { expect } from "chai";
import type { IncomingHttpHeaders } from "node:http";
import { createLazyHeaders, headersOfRecord } from "./lazy-headers.js";

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

describe("createLazyHeaders", () => {
  it("reads what the eager copy reads, in any case, without pseudo-headers", () => {
    const headers = createLazyHeaders(parsed);
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
    const headers = createLazyHeaders(parsed);
    expect(() => headers.get(":path")).to.throw(TypeError);
    expect(() => headers.has("bad name")).to.throw(TypeError);
  });

  it("is a Headers, and iterates the same entries as the eager copy", () => {
    const headers = createLazyHeaders(parsed);
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
    const headers = createLazyHeaders(source);
    headers.set("content-type", "application/json");
    headers.delete("x-commerce-edge-auth");
    headers.append("x-forwarded-for", "192.0.2.4");
    expect(headers.get("content-type")).to.equal("application/json");
    expect(headers.has("x-commerce-edge-auth")).to.equal(false);
    expect(headers.get("x-forwarded-for")).to.equal("192.0.2.2, 192.0.2.3, 192.0.2.4");
    expect(source).to.deep.equal(parsed);
  });

  it("reads an in-process caller's record of lower-case names lazily, and copies any other init", () => {
    const record = { "x-commerce-edge-auth": "secret", "x-user-role": "ADMIN" };
    const lazy = headersOfRecord(record);
    expect(lazy).to.be.instanceOf(Headers);
    expect(lazy.get("X-User-Role")).to.equal("ADMIN");
    expect([...lazy]).to.deep.equal([...new Headers(record)]);
    for (const init of [{ "X-Mixed": "a" }, [["x-pair", "b"]], new Headers({ "x-given": "c" }), undefined]) {
      expect([...headersOfRecord(init)]).to.deep.equal([...new Headers(init as never)]);
    }
    expect(() => headersOfRecord({ "X-Bad": "a\nb" })).to.throw(TypeError);
  });
});

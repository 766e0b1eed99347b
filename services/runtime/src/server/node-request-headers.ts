import type { IncomingHttpHeaders } from "node:http";

/**
 * Node's `Headers`, its members typed as the methods they are (Node's types declare them as
 * properties, which a subclass cannot override).
 */
interface HeadersMethods {
  append(name: string, value: string): void;
  delete(name: string): void;
  get(name: string): string | null;
  has(name: string): boolean;
  set(name: string, value: string): void;
  getSetCookie(): string[];
  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void;
  entries(): ReturnType<Headers["entries"]>;
  keys(): ReturnType<Headers["keys"]>;
  values(): ReturnType<Headers["values"]>;
  [Symbol.iterator](): ReturnType<Headers["entries"]>;
}
const HeadersWithMethods = Headers as unknown as new () => HeadersMethods;

/** A header name as the Fetch standard accepts it (an HTTP token). */
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A request's headers as web `Headers` that read Node's object until something changes them. */
export function createNodeRequestHeaders(source: IncomingHttpHeaders): Headers {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- it extends Headers, which only Node's types (members as properties) hide
  return new NodeRequestHeaders(source);
}

/**
 * A request's headers as web `Headers`, read from the object Node parsed them into, without
 * copying them first: a unary call reads three to six headers (credentials, identity, trace
 * context, deadline) of the fifteen Envoy sends, and filling a `Headers` with all of them was
 * the largest single cost of the service port's own code per call (ADR 0094). A real `Headers`
 * (a subclass): `get` and `has` read Node's object; anything else (iterating, changing) first
 * copies every header in, as the eager copy did, and from then on it is a plain `Headers`.
 *
 * The same values as the eager copy: pseudo-headers (`:path`) left out, a repeated header
 * joined with ", " as `Headers` joins appended values. Node has already trimmed and checked
 * each value (the HTTP/1 parser and nghttp2 refuse what `Headers` would refuse).
 */
class NodeRequestHeaders extends HeadersWithMethods {
  #source: IncomingHttpHeaders | undefined;

  constructor(source: IncomingHttpHeaders) {
    super();
    this.#source = source;
  }

  /** Every header copied in (once), and Node's object let go. */
  #copied(): void {
    const source = this.#source;
    if (source === undefined) return;
    this.#source = undefined;
    for (const key in source) {
      if (key.charCodeAt(0) === 58 /* ":" */) continue;
      const value = source[key];
      if (typeof value === "string") super.append(key, value);
      else if (Array.isArray(value)) for (const item of value) super.append(key, item);
    }
  }

  /** Node's value for `name`, or undefined when `Headers` must answer (invalid name, or copied). */
  #read(name: string): string | null | undefined {
    const source = this.#source;
    if (source === undefined || !tokenPattern.test(name)) return undefined;
    const value = source[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === "string" ? value : value.join(", ");
  }

  override get(name: string): string | null {
    const value = this.#read(name);
    return value === undefined ? super.get(name) : value;
  }

  override has(name: string): boolean {
    const value = this.#read(name);
    return value === undefined ? super.has(name) : value !== null;
  }

  override append(name: string, value: string): void {
    this.#copied();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.#copied();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.#copied();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    this.#copied();
    return super.getSetCookie();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#copied();
    super.forEach(callback, thisArg);
  }

  override entries(): ReturnType<Headers["entries"]> {
    this.#copied();
    return super.entries();
  }

  override keys(): ReturnType<Headers["keys"]> {
    this.#copied();
    return super.keys();
  }

  override values(): ReturnType<Headers["values"]> {
    this.#copied();
    return super.values();
  }

  override [Symbol.iterator](): ReturnType<Headers["entries"]> {
    this.#copied();
    return super[Symbol.iterator]();
  }
}

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

/**
 * A call's request headers as web `Headers` that read `source` until something changes or
 * iterates them: Node's parsed headers (the service port), or an in-process caller's record
 * (`headersOfRecord`).
 */
export function createLazyHeaders(source: IncomingHttpHeaders): Headers {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- it extends Headers, which only Node's types (members as properties) hide
  return new LazyHeaders(source);
}

/**
 * A call's headers as web `Headers`, read from the object they came in, without copying them
 * first: a unary call reads three to six headers (credentials, identity, trace context,
 * deadline) of the fifteen Envoy sends, and filling a `Headers` with all of them was the largest
 * single cost of the service port's own code per call (ADR 0094). A real `Headers` (a
 * subclass): `get` and `has` read the object; anything else (iterating, changing) first copies
 * every header in, as the eager copy did, and from then on it is a plain `Headers`.
 *
 * The same values as the eager copy: pseudo-headers (`:path`) left out, a repeated header
 * joined with ", " as `Headers` joins appended values. Values are taken as checked: Node has
 * trimmed and checked what it parsed (the HTTP/1 parser and nghttp2 refuse what `Headers` would
 * refuse), and an in-process caller forwards those or writes its own.
 */
class LazyHeaders extends HeadersWithMethods {
  #source: IncomingHttpHeaders | undefined;

  constructor(source: IncomingHttpHeaders) {
    super();
    this.#source = source;
  }

  /** Every header copied in (once), and the source let go. */
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

/** A header name in the form Node gives it: a token, lower case. */
const lowerTokenPattern = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/**
 * The headers an in-process caller passes (any `HeadersInit`) as `Headers`: a record whose names
 * are all lower-case tokens with string values (what the local edge forwards, and leaves alone
 * once sent) read lazily; anything else copied as `new Headers` copies it.
 */
export function headersOfRecord(init: unknown): Headers {
  if (init !== null && typeof init === "object" && !(init instanceof Headers) && !Array.isArray(init)) {
    const record = init as Record<string, unknown>;
    let plain = true;
    for (const key in record) {
      if (typeof record[key] !== "string" || !lowerTokenPattern.test(key)) {
        plain = false;
        break;
      }
    }
    if (plain) return createLazyHeaders(record as IncomingHttpHeaders);
  }
  // Typed HeadersInit, a DOM type this project's lib setting does not declare.
  return new Headers(init as ConstructorParameters<typeof Headers>[0]);
}

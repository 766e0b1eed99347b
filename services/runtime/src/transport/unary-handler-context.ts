import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { HandlerContext, UnaryRequest } from "@connectrpc/connect";

/**
 * The response headers and trailers of one call, made only when something asks for them: most
 * calls set none, and an empty `Headers` per call is measurable at tens of thousands of calls
 * per second.
 */
export class ResponseMetadata {
  private headerValue: Headers | undefined;
  private trailerValue: Headers | undefined;

  get header(): Headers {
    return (this.headerValue ??= new Headers());
  }
  get trailer(): Headers {
    return (this.trailerValue ??= new Headers());
  }
  /** The headers a handler or interceptor set, without making an empty set. */
  get headerIfSet(): Headers | undefined {
    return this.headerValue;
  }
  get trailerIfSet(): Headers | undefined {
    return this.trailerValue;
  }
}

/**
 * A unary handler's context, read from the request as the interceptors pass it on (their header,
 * signal and values win, as in Connect's own handlers), and writing to the call's
 * `ResponseMetadata`. Shared by the in-process transport and the service port's unary path.
 */
export class UnaryHandlerContext implements HandlerContext {
  constructor(
    private readonly req: UnaryRequest,
    readonly protocolName: string,
    private readonly response: ResponseMetadata,
    /** Epoch milliseconds of the caller's deadline, when it sent one. */
    private readonly deadline?: number,
  ) {}

  get service(): DescService {
    return this.req.service;
  }
  get method(): DescMethod {
    return this.req.method;
  }
  get requestMethod(): string {
    return this.req.requestMethod;
  }
  get url(): string {
    return this.req.url;
  }
  get signal(): AbortSignal {
    return this.req.signal;
  }
  get requestHeader(): Headers {
    return this.req.header;
  }
  get values(): HandlerContext["values"] {
    return this.req.contextValues;
  }
  get responseHeader(): Headers {
    return this.response.header;
  }
  get responseTrailer(): Headers {
    return this.response.trailer;
  }
  timeoutMs(): number | undefined {
    return this.deadline === undefined ? undefined : this.deadline - Date.now();
  }
}

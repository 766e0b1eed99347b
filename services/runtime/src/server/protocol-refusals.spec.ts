import { expect } from "chai";
import {
  malformedRequest,
  refusalOf,
  refusalResponse,
  requestHeadTooLarge,
  requestTimeout,
} from "./protocol-refusals.js";

describe("refusalOf", () => {
  it("maps Node's parser and timer errors to their statuses, anything else to 400", () => {
    expect(refusalOf("HPE_HEADER_OVERFLOW")).to.equal(requestHeadTooLarge);
    expect(refusalOf("ERR_HTTP_REQUEST_TIMEOUT")).to.equal(requestTimeout);
    expect(refusalOf("HPE_CHUNK_EXTENSIONS_OVERFLOW")).to.include({ status: 413, code: "PAYLOAD_TOO_LARGE" });
    for (const code of [
      "HPE_INVALID_METHOD",
      "HPE_INVALID_HEADER_TOKEN",
      "HPE_UNEXPECTED_CONTENT_LENGTH",
      undefined,
    ]) {
      expect(refusalOf(code)).to.equal(malformedRequest);
    }
  });
});

describe("refusalResponse", () => {
  it("is a whole HTTP/1.1 response with the JSON error body, closing the connection", () => {
    const body = JSON.stringify(requestTimeout);
    expect(refusalResponse(requestTimeout)).to.equal(
      "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n" +
        `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
});

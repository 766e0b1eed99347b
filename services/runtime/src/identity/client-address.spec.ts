import { expect } from "chai";
import { canonicalClientAddress, clientAddressFromHeaders } from "./client-address.js";

describe("canonicalClientAddress", () => {
  it("keeps an IPv4 address and writes an IPv6 one as URLs do", () => {
    expect(canonicalClientAddress("127.0.0.2")).to.equal("127.0.0.2");
    expect(canonicalClientAddress("2001:DB8:0:0:0:0:0:1")).to.equal("2001:db8::1");
    expect(canonicalClientAddress("2001:0db8:0001:0000:0000:0ab9:C0A8:0102")).to.equal(
      "2001:db8:1::ab9:c0a8:102",
    );
    expect(canonicalClientAddress("::1")).to.equal("::1");
  });

  it("gives the IPv4 address of an IPv4-mapped IPv6 address, as a dual-stack socket reports it", () => {
    expect(canonicalClientAddress("::ffff:127.0.0.2")).to.equal("127.0.0.2");
    expect(canonicalClientAddress("::FFFF:7f00:3")).to.equal("127.0.0.3");
  });

  it("refuses what is not an address: a name, a port, a zone, a list, nothing", () => {
    for (const text of [
      "localhost",
      "127.0.0.1:8080",
      "fe80::1%eth0",
      "10.0.0.1, 10.0.0.2",
      "",
      "1.2.3",
      null,
    ]) {
      expect(canonicalClientAddress(text), String(text)).to.equal(undefined);
    }
    expect(canonicalClientAddress(undefined)).to.equal(undefined);
  });

  it("reads the edge's header", () => {
    expect(
      clientAddressFromHeaders(new Headers({ "x-commerce-client-address": "::ffff:10.1.2.3" })),
    ).to.equal("10.1.2.3");
    expect(clientAddressFromHeaders(new Headers())).to.equal(undefined);
  });
});

import { expect } from "chai";
import { calleeAt, peerAddresses, peerCalls, peerCredentials } from "./peer-addresses.js";

describe("peerCalls", () => {
  it("is the call graph the peer addresses declare: who reads an address calls its service", () => {
    expect(peerCalls.map((call) => `${call.caller} -> ${call.callee}`)).to.deep.equal([
      "auth -> user",
      "user -> auth",
      "order -> auth",
      "notification -> auth",
      "recommendation -> auth",
      "product -> order",
      "payment -> order",
      "notification -> order",
      "order -> product",
      "recommendation -> product",
    ]);
    expect(calleeAt(peerAddresses.ORDER_SERVICE_URL)).to.equal("order");
  });

  it("pairs each address with the credential its readers present there, read by the same processes", () => {
    for (const call of peerCalls) {
      expect(call.credential.name).to.equal(call.address.name.replace(/_URL$/, "_CREDENTIAL"));
      expect(call.credential.readBy).to.deep.equal(call.address.readBy);
    }
    expect(Object.keys(peerCredentials)).to.have.length(Object.keys(peerAddresses).length);
  });
});

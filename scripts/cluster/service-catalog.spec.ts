import { expect } from "chai";
import { edgeDestinations } from "@commerce/runtime/identity";
import { peerCalls } from "@commerce/runtime/server";
import { deployableServices, serviceUrlVariable } from "./service-catalog.js";

describe("deployableServices", () => {
  it("names each service once", () => {
    const names = deployableServices.map((service) => service.name);
    expect(names).to.deep.equal([...new Set(names)]);
  });

  it("holds one public site, which calls nothing, owns only the gateway's URL (for its pages' policy), has no API and no caller", () => {
    const sites = deployableServices.filter((service) => service.kind === "site");
    expect(sites.map(({ name, peers, owns, routed }) => ({ name, peers, owns, routed }))).to.deep.equal([
      { name: "web", peers: {}, owns: ["PAYMENT_GATEWAY_URL"], routed: false },
    ]);
    const callees = deployableServices.flatMap((service) => Object.values(service.peers));
    expect(callees).to.not.include("web");
  });

  it("calls the peers the processes declare, and routes the edge to the services that take its credential", () => {
    // The runtime's call graph (services/runtime/src/server/peer-addresses.ts) decides who
    // holds which peer credential: the catalog, which decides the addresses, must agree.
    const calls = deployableServices.flatMap((service) =>
      Object.entries(service.peers).map(
        ([variable, peer]) => `${service.name} -> ${String(peer)} at ${variable}`,
      ),
    );
    expect(calls.sort()).to.deep.equal(
      peerCalls
        .map((call) => `${call.caller} -> ${call.callee} at ${serviceUrlVariable(call.callee)}`)
        .sort(),
    );
    expect(deployableServices.filter((s) => s.routed).map((s) => s.name)).to.deep.equal(edgeDestinations);
  });
});

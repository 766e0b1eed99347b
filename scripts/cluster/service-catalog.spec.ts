import { expect } from "chai";
import { deployableServices } from "./service-catalog.js";

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
});

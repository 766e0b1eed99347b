import { expect } from "chai";
import { deployableServices } from "./service-catalog.js";

describe("deployableServices", () => {
  it("names each service once", () => {
    const names = deployableServices.map((service) => service.name);
    expect(names).to.deep.equal([...new Set(names)]);
  });
});

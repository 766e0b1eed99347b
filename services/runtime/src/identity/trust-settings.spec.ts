import { expect } from "chai";
import { EnvReader } from "../config/env-reader.js";
import { serviceProcesses, type ServiceProcessName } from "../config/setting.js";
import { peerCalls } from "../server/peer-addresses.js";
import { configProblems } from "../testing/config-problems.js";
import { deriveServiceCredentials, serviceTrustEnvironment } from "./derived-service-credentials.js";
import { credentialSha256, edgeCredential, peerCredential } from "./hop-credentials.js";
import { readServiceCredentials } from "./trust-settings.js";

const secrets = { edgeSecret: "e".repeat(43), peerSecret: "p".repeat(43) };

function read(service: ServiceProcessName, env: Record<string, string | undefined>) {
  const reader = new EnvReader(env, { process: service });
  return reader.finish(readServiceCredentials(reader, service));
}

function problems(service: ServiceProcessName, env: Record<string, string | undefined>): readonly string[] {
  return configProblems(() => read(service, env));
}

describe("hop credentials", () => {
  it("are the hex SHA-256 of the hop's label and the secret (values computed elsewhere)", () => {
    // The chart derives the same with `printf "edge:%s:%s" | sha256sum` (helm/templates/_helpers.tpl).
    expect(edgeCredential("secret", "order")).to.equal(
      "ca7c723d6749459f645882426542629643f6baaf7b9ee255b7307f02497ef377",
    );
    expect(peerCredential("secret", "product", "order")).to.equal(
      "aef2e00664204089b4cf06c9081145dc2b8af9e6a923edb3ca586bf41efdf8ca",
    );
    expect(credentialSha256(edgeCredential("secret", "order"))).to.equal(
      "1224475b5bcd50c9fd0b73894f159a3b1c6dc204e259db2cc15d3d8dd49668a4",
    );
  });

  it("differ for every hop, and from the secrets they come from", () => {
    const values = [
      ...serviceProcesses.map((service) => edgeCredential(secrets.edgeSecret, service)),
      // Every ordered pair, and each call of the graph from the other secret.
      ...serviceProcesses.flatMap((caller) =>
        serviceProcesses
          .filter((callee) => callee !== caller)
          .map((callee) => peerCredential(secrets.peerSecret, caller, callee)),
      ),
      ...peerCalls.map((call) => peerCredential(secrets.edgeSecret, call.caller, call.callee)),
    ];
    expect(values).to.have.length(9 + 9 * 8 + peerCalls.length);
    expect(new Set(values).size).to.equal(values.length);
    expect(values).to.not.include(secrets.edgeSecret).and.not.include(secrets.peerSecret);
  });
});

describe("readServiceCredentials", () => {
  it("reads back for every service process what deriveServiceCredentials gives it", () => {
    for (const service of serviceProcesses) {
      const env = serviceTrustEnvironment(service, secrets);
      expect(read(service, env), service).to.deep.equal(deriveServiceCredentials(service, secrets));
    }
  });

  it("gives each process only its own hops: order's callers, order's peers, the edge's credential for order", () => {
    const env = serviceTrustEnvironment("order", secrets);
    const digest = (credential: string) => credentialSha256(credential);
    expect(env).to.deep.equal({
      EDGE_CREDENTIAL_SHA256: digest(edgeCredential(secrets.edgeSecret, "order")),
      PEER_CALLERS_SHA256: [
        `product=${digest(peerCredential(secrets.peerSecret, "product", "order"))}`,
        `payment=${digest(peerCredential(secrets.peerSecret, "payment", "order"))}`,
        `notification=${digest(peerCredential(secrets.peerSecret, "notification", "order"))}`,
      ].join(","),
      AUTH_SERVICE_CREDENTIAL: peerCredential(secrets.peerSecret, "order", "auth"),
      PRODUCT_SERVICE_CREDENTIAL: peerCredential(secrets.peerSecret, "order", "product"),
    });
    // The stream processor serves no API and calls nobody: it holds nothing.
    expect(serviceTrustEnvironment("analytics-processor", secrets)).to.deep.equal({});
    expect(serviceTrustEnvironment("notification", secrets)).to.have.keys([
      "EDGE_CREDENTIAL_SHA256",
      "AUTH_SERVICE_CREDENTIAL",
      "ORDER_SERVICE_CREDENTIAL",
    ]);
  });

  it("names every missing or malformed credential", () => {
    expect(problems("order", {})).to.deep.equal([
      "EDGE_CREDENTIAL_SHA256 is required (ADR 0105)",
      "PEER_CALLERS_SHA256 is required (ADR 0105)",
      "AUTH_SERVICE_CREDENTIAL is required (ADR 0105)",
      "PRODUCT_SERVICE_CREDENTIAL is required (ADR 0105)",
    ]);
    const good = serviceTrustEnvironment("order", secrets);
    const digest = "a".repeat(64);
    expect(
      problems("order", {
        ...good,
        EDGE_CREDENTIAL_SHA256: "not-hex",
        PEER_CALLERS_SHA256: `product=${digest},user=${digest}`,
        PRODUCT_SERVICE_CREDENTIAL: "short",
      }),
    ).to.deep.equal([
      "EDGE_CREDENTIAL_SHA256 must be the SHA-256 of the edge's credential for order as 64 hex digits",
      'PEER_CALLERS_SHA256 names "user", which is not a caller of order or is named twice (its callers: product, payment, notification)',
      "PEER_CALLERS_SHA256 lacks the digest of payment and notification, which call order",
      "PRODUCT_SERVICE_CREDENTIAL must be at least 32 visible ASCII characters without spaces",
    ]);
    expect(
      problems("order", {
        ...good,
        PEER_CALLERS_SHA256: `product=${digest},payment=xyz,notification=${digest}`,
      }),
    ).to.deep.equal([
      "PEER_CALLERS_SHA256 must give payment's digest as payment=<64 hex digits>",
      "PEER_CALLERS_SHA256 lacks the digest of payment, which call order",
    ]);
  });
});

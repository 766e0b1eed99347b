import { expect } from "chai";
import { ConfigError, parseDuration } from "@commerce/runtime/config";
import { noGatewayMessage } from "@commerce/payment";
import { loadEmbeddedConfig } from "./embedded-config.js";
import type { SecretSource } from "./local-secrets.js";

/** Generated secrets kept in memory instead of under DATA_DIR, recording what was asked for. */
function memorySecrets(): { readonly asked: string[]; readonly source: (dataDir: string) => SecretSource } {
  const asked: string[] = [];
  const values = new Map<string, string>();
  return {
    asked,
    source: (dataDir) => ({
      value(name, generate) {
        asked.push(`${dataDir}:${name}`);
        const value = values.get(name) ?? generate();
        values.set(name, value);
        return value;
      },
    }),
  };
}

function problemsOf(load: () => unknown): readonly string[] {
  try {
    load();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("loadEmbeddedConfig", () => {
  it("applies the documented defaults and generates what a laptop need not set", () => {
    const secrets = memorySecrets();
    const config = loadEmbeddedConfig({}, "/srv", secrets.source);
    expect(config.process).to.deep.equal({
      port: 8080,
      host: "127.0.0.1",
      dataDir: "/srv/.data",
      logLevel: "info",
      maxBodyBytes: 1024 * 1024,
    });
    expect(config.grpcPort).to.equal(9090);
    expect(config.infra).to.deep.equal({
      mongodbUrl: undefined,
      kafkaBrokers: undefined,
      kafkaPartitions: 3,
    });
    expect(config.analyticsStore).to.deep.equal({ clickHouse: undefined, chdbDir: "/srv/.data/analytics" });
    expect(config.auth.jwtTtlSeconds).to.equal(3600);
    expect(config.auth.jwtKey.length).to.equal(86); // 64 random bytes, base64url
    expect(config.currency).to.equal("INR");
    expect(config.edgeSecret).to.have.length(43);
    expect(config.peerSecret).to.have.length(43);
    expect(config.edgeSecret).to.not.equal(config.peerSecret);
    expect(config.payment.keySecret).to.have.length(43);
    expect(config.payment.webhookSecret).to.have.length(43);
    expect(config.payment.keySecret).to.not.equal(config.payment.webhookSecret);
    expect(config.payment.gateway).to.deep.equal({ kind: "sandbox" });
    expect(config.sandboxByDefault).to.equal(true);
    expect(config.telemetry).to.deep.equal({
      traces: undefined,
      metrics: undefined,
      resourceAttributes: {},
      serviceName: undefined,
    });
    expect(config.generatedAdmin?.email).to.equal("admin@commerce.local");
    expect(config.auth.admin).to.deep.equal(config.generatedAdmin);
    expect(secrets.asked).to.deep.equal([
      "/srv/.data:jwt-secret",
      "/srv/.data:edge-secret",
      "/srv/.data:peer-secret",
      "/srv/.data:payment-key-secret",
      "/srv/.data:payment-webhook-secret",
      "/srv/.data:admin-password",
    ]);
  });

  it("reads every variable it documents and generates nothing that was given", () => {
    const secrets = memorySecrets();
    const config = loadEmbeddedConfig(
      {
        PORT: "9000",
        GRPC_PORT: "0",
        DATA_DIR: "/var/lib/commerce",
        JWT_SECRET: "x".repeat(64),
        JWT_TTL: "15m",
        EDGE_SECRET: "e".repeat(32),
        PEER_SECRET: "p".repeat(32),
        ADMIN_EMAIL: "ops@example.com",
        ADMIN_PASSWORD: "long enough",
        PAYMENT_CURRENCY: "USD",
        PAYMENT_KEY_SECRET: "k".repeat(24),
        PAYMENT_WEBHOOK_SECRET: "w".repeat(24),
        PAYMENT_GATEWAY_URL: "https://gateway.example.com",
        PAYMENT_KEY_ID: "rzp_test_abc",
        MONGODB_URL: "mongodb://db:27017/",
        KAFKA_BROKERS: "k1:9092, k2:9092",
        KAFKA_PARTITIONS: "6",
        CLICKHOUSE_URL: "http://analytics:secret@clickhouse:8123/shop_figures",
        LOG_LEVEL: "debug",
      },
      "/srv",
      secrets.source,
    );
    expect(secrets.asked).to.deep.equal([]);
    expect(config.process.port).to.equal(9000);
    expect(config.grpcPort).to.equal(0);
    expect(config.process.dataDir).to.equal("/var/lib/commerce");
    expect(config.auth.jwtKey).to.deep.equal(new TextEncoder().encode("x".repeat(64)));
    expect(config.auth.jwtTtlSeconds).to.equal(900);
    expect(config.auth.admin).to.deep.equal({ email: "ops@example.com", password: "long enough" });
    expect(config.generatedAdmin).to.equal(undefined);
    expect(config.edgeSecret).to.equal("e".repeat(32));
    expect(config.peerSecret).to.equal("p".repeat(32));
    expect(config.currency).to.equal("USD");
    expect(config.payment).to.deep.equal({
      currency: "USD",
      keySecret: "k".repeat(24),
      webhookSecret: "w".repeat(24),
      gateway: { kind: "http", baseUrl: "https://gateway.example.com", keyId: "rzp_test_abc" },
    });
    expect(config.sandboxByDefault).to.equal(false);
    expect(config.infra).to.deep.equal({
      mongodbUrl: "mongodb://db:27017/",
      kafkaBrokers: ["k1:9092", "k2:9092"],
      kafkaPartitions: 6,
    });
    expect(config.analyticsStore).to.deep.equal({
      clickHouse: { url: "http://analytics:secret@clickhouse:8123", database: "shop_figures" },
      chdbDir: "/var/lib/commerce/analytics",
    });
    expect(config.process.logLevel).to.equal("debug");
  });

  it("puts ClickHouse's tables in commerce_analytics unless CLICKHOUSE_URL's path names a database", () => {
    const load = (url: string) =>
      loadEmbeddedConfig({ CLICKHOUSE_URL: url }, "/srv", memorySecrets().source).analyticsStore.clickHouse;
    expect(load("http://127.0.0.1:8123")).to.deep.equal({
      url: "http://127.0.0.1:8123",
      database: "commerce_analytics",
    });
    expect(load("https://ch.example.com/")).to.deep.equal({
      url: "https://ch.example.com",
      database: "commerce_analytics",
    });
  });

  it("chooses the sandbox gateway only when nothing chose a gateway, and refuses a contradiction", () => {
    const load = (env: Record<string, string>) => loadEmbeddedConfig(env, "/srv", memorySecrets().source);
    const chosen = load({ PAYMENT_SANDBOX: "true" });
    expect(chosen.payment.gateway).to.deep.equal({ kind: "sandbox" });
    expect(chosen.sandboxByDefault).to.equal(false);
    expect(problemsOf(() => load({ PAYMENT_SANDBOX: "false" }))).to.deep.equal([noGatewayMessage]);
    expect(
      problemsOf(() =>
        load({ PAYMENT_SANDBOX: "TRUE", PAYMENT_GATEWAY_URL: "https://gw.example", PAYMENT_KEY_ID: "rzp_1" }),
      ),
    ).to.deep.equal([
      "PAYMENT_GATEWAY_URL and PAYMENT_SANDBOX=true exclude each other: payments go to one gateway (unset PAYMENT_SANDBOX to take them at the gateway)",
    ]);
    expect(problemsOf(() => load({ PAYMENT_SANDBOX: "yes" }))).to.deep.equal([
      'PAYMENT_SANDBOX must be true or false, got "yes"',
      noGatewayMessage,
    ]);
  });

  it("generates no admin on a real database: the operator's accounts live there", () => {
    const config = loadEmbeddedConfig({ MONGODB_URL: "mongodb://db:27017/" }, "/srv", memorySecrets().source);
    expect(config.generatedAdmin).to.equal(undefined);
    expect(config.auth.admin).to.equal(undefined);
  });

  it("reports every bad variable at once, each by name", () => {
    const problems = problemsOf(() =>
      loadEmbeddedConfig(
        {
          PORT: "80a",
          JWT_SECRET: "too short",
          JWT_TTL: "forever",
          EDGE_SECRET: "short",
          PEER_SECRET: "has spaces in it but is long enough to count",
          ADMIN_EMAIL: "ops@example.com",
          PAYMENT_CURRENCY: "rupees",
          PAYMENT_KEY_SECRET: "short",
          PAYMENT_GATEWAY_URL: "ftp://gateway",
          MONGODB_URL: "postgres://db",
          KAFKA_BROKERS: "k1",
          KAFKA_PARTITIONS: "0",
          CLICKHOUSE_URL: "http://clickhouse:8123/a/b",
          LOG_LEVEL: "loud",
          OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
          OTEL_TRACES_SAMPLER_ARG: "10%",
        },
        "/srv",
        memorySecrets().source,
      ),
    );
    expect(problems).to.have.length(16);
    for (const name of [
      "PORT",
      "JWT_SECRET",
      "JWT_TTL",
      "EDGE_SECRET",
      "PEER_SECRET",
      "ADMIN_EMAIL and ADMIN_PASSWORD",
      "PAYMENT_CURRENCY",
      "PAYMENT_KEY_SECRET",
      "PAYMENT_GATEWAY_URL",
      "PAYMENT_KEY_ID",
      "MONGODB_URL",
      "KAFKA_BROKERS",
      "KAFKA_PARTITIONS",
      "CLICKHOUSE_URL",
      "LOG_LEVEL",
      "OTEL_TRACES_SAMPLER_ARG",
    ]) {
      expect(
        problems.some((p) => p.startsWith(name)),
        name,
      ).to.equal(true);
    }
    expect(problems).to.include("JWT_SECRET must be at least 64 bytes for HS512, got 9");
    expect(problems).to.include('OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "10%"');
  });
});

describe("parseDuration", () => {
  it("reads seconds and s/m/h/d suffixes and refuses anything else", () => {
    expect(["3600", "90s", "15m", "1h", "7d"].map(parseDuration)).to.deep.equal([
      3600, 90, 900, 3600, 604800,
    ]);
    expect(["", "1w", "-5", "1.5h", "h"].map(parseDuration)).to.deep.equal([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

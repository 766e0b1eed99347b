import { expect } from "chai";
import { ConfigError, loadPlatformConfig, parseDuration } from "./platform-config.js";

describe("loadPlatformConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadPlatformConfig({}, "/srv");
    expect(config).to.deep.include({
      port: 8080,
      host: "127.0.0.1",
      grpcPort: 9090,
      dataDir: "/srv/.data",
      jwtSecret: undefined,
      jwtTtlSeconds: 3600,
      admin: undefined,
      mongodbUrl: undefined,
      kafkaBrokers: undefined,
      kafkaPartitions: 3,
      clickhouseUrl: undefined,
      logLevel: "info",
      maxBodyBytes: 1024 * 1024,
    });
    expect(config.payment).to.deep.equal({
      keySecret: undefined,
      webhookSecret: undefined,
      currency: "INR",
      gatewayUrl: undefined,
    });
  });

  it("reads every variable it documents", () => {
    const config = loadPlatformConfig({
      PORT: "9000",
      GRPC_PORT: "0",
      DATA_DIR: "/var/lib/commerce",
      JWT_SECRET: "x".repeat(64),
      JWT_TTL: "15m",
      ADMIN_EMAIL: "ops@example.com",
      ADMIN_PASSWORD: "long enough",
      PAYMENT_CURRENCY: "USD",
      MONGODB_URL: "mongodb://db:27017/",
      KAFKA_BROKERS: "k1:9092, k2:9092",
      KAFKA_PARTITIONS: "6",
      CLICKHOUSE_URL: "http://ch:8123",
      LOG_LEVEL: "debug",
    });
    expect(config.port).to.equal(9000);
    expect(config.grpcPort).to.equal(0);
    expect(config.dataDir).to.equal("/var/lib/commerce");
    expect(config.jwtSecret?.length).to.equal(64);
    expect(config.jwtTtlSeconds).to.equal(900);
    expect(config.admin).to.deep.equal({ email: "ops@example.com", password: "long enough" });
    expect(config.kafkaBrokers).to.deep.equal(["k1:9092", "k2:9092"]);
    expect(config.kafkaPartitions).to.equal(6);
    expect(config.logLevel).to.equal("debug");
  });

  it("reports every bad variable at once, each by name", () => {
    let error: unknown;
    try {
      loadPlatformConfig({
        PORT: "80a",
        JWT_SECRET: "too short",
        JWT_TTL: "forever",
        ADMIN_EMAIL: "ops@example.com",
        PAYMENT_CURRENCY: "rupees",
        MONGODB_URL: "postgres://db",
        KAFKA_BROKERS: "k1",
        KAFKA_PARTITIONS: "0",
        LOG_LEVEL: "loud",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).to.have.length(9);
    for (const name of [
      "PORT",
      "JWT_SECRET",
      "JWT_TTL",
      "ADMIN_EMAIL and ADMIN_PASSWORD",
      "PAYMENT_CURRENCY",
      "MONGODB_URL",
      "KAFKA_BROKERS",
      "LOG_LEVEL",
    ]) {
      expect(
        problems.some((p) => p.startsWith(name)),
        name,
      ).to.equal(true);
    }
    expect((error as ConfigError).message).to.include(
      "JWT_SECRET must be at least 64 bytes for HS512, got 9",
    );
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

import { expect } from "chai";
import type { Env } from "@commerce/runtime/config";
import { configProblems } from "@commerce/runtime/testing";
import { corsSettingsOf, noCors } from "./cors-settings.js";

function problemsOf(env: Env): readonly string[] {
  return configProblems(() => corsSettingsOf(env));
}

describe("readCorsSettings", () => {
  it("allows no origin by default, and lets browsers keep a preflight's answer 10 minutes", () => {
    expect(corsSettingsOf({})).to.deep.equal({ allowedOrigins: [], allowedHeaders: [], maxAgeSeconds: 600 });
    expect(corsSettingsOf({ CORS_ALLOWED_ORIGINS: " ", CORS_ALLOWED_HEADERS: "" })).to.deep.equal(noCors);
  });

  it("reads comma-separated origins, headers (lowercased, without the ones always allowed) and a max age", () => {
    expect(
      corsSettingsOf({
        CORS_ALLOWED_ORIGINS:
          "https://shop.example.com, http://localhost:5173,http://[::1]:8080,https://shop.example.com",
        CORS_ALLOWED_HEADERS: "X-Request-Id, traceparent, Authorization",
        CORS_MAX_AGE: "1h",
      }),
    ).to.deep.equal({
      allowedOrigins: ["https://shop.example.com", "http://localhost:5173", "http://[::1]:8080"],
      allowedHeaders: ["x-request-id", "traceparent"],
      maxAgeSeconds: 3600,
    });
    expect(corsSettingsOf({ CORS_MAX_AGE: "0" }).maxAgeSeconds).to.equal(0);
  });

  it('takes "*" alone for any origin', () => {
    expect(corsSettingsOf({ CORS_ALLOWED_ORIGINS: "*" }).allowedOrigins).to.deep.equal(["*"]);
    expect(problemsOf({ CORS_ALLOWED_ORIGINS: "*, https://shop.example.com" })).to.deep.equal([
      'CORS_ALLOWED_ORIGINS must be "*" alone or a list of origins, got "*, https://shop.example.com"',
    ]);
  });

  it("refuses anything but an origin as browsers send it, one message per bad entry", () => {
    const bad = [
      "https://shop.example.com/",
      "https://shop.example.com/app",
      "https://Shop.example.com",
      "https://shop.example.com:443",
      "shop.example.com",
      "ftp://shop.example.com",
      "null",
      "https://*.example.com",
    ];
    expect(problemsOf({ CORS_ALLOWED_ORIGINS: bad.join(",") })).to.deep.equal(
      bad.map(
        (origin) =>
          "CORS_ALLOWED_ORIGINS must list origins as browsers send them, like https://shop.example.com " +
          `(http or https, lowercase host, a port only if not the default, no path), got "${origin}"`,
      ),
    );
  });

  it("refuses header names that are not letters, digits and hyphens, and a wildcard", () => {
    expect(problemsOf({ CORS_ALLOWED_HEADERS: "x-ok, *, x_under, x y, #x" })).to.deep.equal(
      ["*", "x_under", "x y", "#x"].map(
        (header) =>
          `CORS_ALLOWED_HEADERS must list header names of letters, digits and hyphens, like x-request-id, got "${header}"`,
      ),
    );
  });

  it("refuses a max age that is not a duration from 0 to a day", () => {
    for (const value of ["-1", "2d", "soon"]) {
      expect(problemsOf({ CORS_MAX_AGE: value }), value).to.deep.equal([
        `CORS_MAX_AGE must be a duration from 0 to 1d such as "600", "10m", got "${value}"`,
      ]);
    }
  });
});

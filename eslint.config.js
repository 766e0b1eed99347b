// One linter for the repo: typescript-eslint with type information, so that a floating promise
// is an error. Formatting belongs to Prettier alone.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import { builtinModules } from "node:module";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "services/runtime/gen/",
      "client/gen/",
      ".build/",
      ".data/",
      ".infra/",
      ".cluster/",
      "**/*.js",
      "**/*.mjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "@typescript-eslint/no-confusing-void-expression": [
        "error",
        { ignoreArrowShorthand: true, ignoreVoidOperator: true },
      ],
    },
  },
  {
    // Test support (each service's src/testing: harnesses, the faulty transport, fake peers)
    // never reaches production code. The build leaves those folders out, but an import would
    // pull them back in.
    files: ["services/*/src/**/*.ts", "embedded/src/**/*.ts"],
    ignores: ["**/*.spec.ts", "**/*.contract.ts", "services/*/src/testing/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/testing/*", "@commerce/*/testing"],
              message: "test support is for specs only",
            },
          ],
        },
      ],
    },
  },
  {
    // The typed client runs in browsers too (a storefront, a back-office app): nothing of Node's.
    // client/tsconfig.browser.json compiles it as a browser app does, without Node's types.
    files: ["client/src/**/*.ts"],
    ignores: ["**/*.spec.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: builtinModules.map((name) => ({ name, message: "the client runs in browsers" })),
          patterns: [{ group: ["node:*"], message: "the client runs in browsers" }],
        },
      ],
      "no-restricted-globals": ["error", "Buffer", "process", "global", "require", "__dirname", "__filename"],
    },
  },
  {
    // The web app runs in browsers and calls the platform only through the typed client
    // (@commerce/client), like any third-party storefront: no fetch of its own, nothing of Node's.
    files: ["web/src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "no-restricted-imports": [
        "error",
        {
          paths: builtinModules.map((name) => ({ name, message: "the web app runs in browsers" })),
          patterns: [{ group: ["node:*"], message: "the web app runs in browsers" }],
        },
      ],
      "no-restricted-globals": [
        "error",
        ...["fetch", "XMLHttpRequest", "WebSocket", "EventSource"].map((name) => ({
          name,
          message: "the web app calls the API through @commerce/client",
        })),
        "Buffer",
        "process",
        "global",
        "require",
        "__dirname",
        "__filename",
      ],
    },
  },
  {
    files: ["**/*.spec.ts", "test/**/*.ts"],
    rules: {
      // chai's `expect(x).to.be.true` style reads as an unused expression.
      "@typescript-eslint/no-unused-expressions": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
);

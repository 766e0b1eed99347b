import { expect } from "chai";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Access, publicServices } from "@commerce/runtime/contract";
import { createRouteTable } from "@commerce/edge/rest-mapping";
import { buildDescriptorSet } from "../contract-descriptors.js";
import { buildOpenApiDocument } from "./openapi-document.js";
import { createProtoComments } from "./proto-comments.js";
import type { JsonSchema } from "./json-schema.js";

const repoRoot = new URL("../../..", import.meta.url).pathname;

interface Operation {
  readonly operationId: string;
  readonly security: readonly Record<string, unknown>[];
  readonly parameters?: readonly { name: string; in: string; schema: JsonSchema; example?: unknown }[];
  readonly requestBody?: { content: Record<string, { schema: JsonSchema; example?: unknown }> };
  readonly responses: Record<
    string,
    {
      $ref?: string;
      content?: Record<string, { schema: JsonSchema; example?: unknown }>;
      links?: Record<
        string,
        { operationId: string; parameters?: Record<string, string>; requestBody?: Record<string, string> }
      >;
    }
  >;
}

describe("the OpenAPI document of the contract", function () {
  this.timeout(60_000);
  const routes = createRouteTable(publicServices).routes;
  let document: JsonSchema;
  let operations: Map<string, { path: string; verb: string; operation: Operation }>;

  before(async () => {
    const comments = createProtoComments(await buildDescriptorSet(repoRoot, { sourceInfo: true }));
    document = buildOpenApiDocument(routes, comments, { version: "0.0.0-test" });
    operations = new Map();
    for (const [path, verbs] of Object.entries(
      document["paths"] as Record<string, Record<string, Operation>>,
    )) {
      for (const [verb, operation] of Object.entries(verbs))
        operations.set(operation.operationId, { path, verb, operation });
    }
  });

  const operationOf = (name: string): Operation => {
    const found = operations.get(name);
    if (found === undefined) throw new Error(`no operation ${name}`);
    return found.operation;
  };

  it("describes every route both edges serve, once, under its method and JSON parameter names", () => {
    expect(operations.size).to.equal(routes.length);
    for (const route of routes) {
      const id = route.method.name.charAt(0).toLowerCase() + route.method.name.slice(1);
      const found = operations.get(id);
      expect(found?.verb, id).to.equal(route.verb.toLowerCase());
      expect(found?.path, id).to.equal(
        route.template.replace(
          /\{(\w+)\}/g,
          (_, name: string) => `{${name.replace(/_(\w)/g, (__, c: string) => c.toUpperCase())}}`,
        ),
      );
    }
    expect(operations.get("getOrder")?.path).to.equal("/api/orders/{orderId}");
  });

  it("answers each success as served: its status, a bare array where unwrapped, no body for 204", () => {
    for (const route of routes) {
      const id = route.method.name.charAt(0).toLowerCase() + route.method.name.slice(1);
      const success = operationOf(id).responses[String(route.contract.successStatus)];
      expect(success, id).to.not.equal(undefined);
      if (route.contract.successStatus === 204) expect(success?.content, id).to.equal(undefined);
      else if (route.contract.unwrap !== undefined)
        expect(success?.content?.["application/json"]?.schema["type"], id).to.equal("array");
      else expect(success?.content?.["application/json"]?.schema["$ref"], id).to.be.a("string");
    }
    expect(Object.keys(operationOf("deleteProduct").responses)).to.include("204");
    expect(Object.keys(operationOf("placeOrder").responses)).to.include("201");
  });

  it("marks public operations public, asks a bearer token of the others, and lists every error status they can answer", () => {
    for (const route of routes) {
      const id = route.method.name.charAt(0).toLowerCase() + route.method.name.slice(1);
      const operation = operationOf(id);
      const statuses = Object.keys(operation.responses).map(Number);
      if (route.contract.access === Access.PUBLIC) {
        expect(operation.security, id).to.deep.equal([]);
      } else {
        expect(operation.security, id).to.deep.equal([{ bearerAuth: [] }]);
        expect(statuses, id).to.include(401);
      }
      if (route.contract.access === Access.ADMIN) expect(statuses, id).to.include(403);
      if (route.body !== undefined) expect(statuses, id).to.include(413);
      expect(statuses, id).to.include.members([400, 500, 503, 504, ...route.contract.errorStatuses]);
    }
    expect(Object.keys(operationOf("login").responses)).to.include.members(["401", "404", "429"]);
    const notFound = (document["components"] as { responses: Record<string, JsonSchema> }).responses[
      "NotFound"
    ];
    expect(JSON.stringify(notFound)).to.include('"status":{"const":404}');
  });

  it("states the contract's rules: required fields, bounds, patterns, unknown fields refused", () => {
    const schemas = (document["components"] as { schemas: Record<string, JsonSchema> }).schemas;
    expect(schemas["PlaceOrderRequest"]).to.deep.include({
      required: ["items"],
      additionalProperties: false,
    });
    const line = schemas["OrderLineInput"] as { properties: Record<string, JsonSchema>; required: string[] };
    expect(line.required).to.deep.equal(["productId", "quantity"]);
    expect(line.properties["quantity"]).to.deep.include({ type: "integer", minimum: 1, maximum: 1000 });
    const register = schemas["RegisterRequest"] as { properties: Record<string, JsonSchema> };
    expect(register.properties["email"]).to.deep.include({ format: "email", maxLength: 254 });
    expect(register.properties["phoneNo"]).to.deep.include({ pattern: "^\\+?[0-9]{7,15}$" });
    // The path binds productId: the body is the rest of the message.
    const update = operationOf("updateProduct").requestBody?.content["application/json"]?.schema ?? {};
    expect(update["properties"]).to.not.have.property("productId");
    expect(JSON.stringify(update["anyOf"])).to.include('"required":["price"]');
    const sizes = operationOf("listProducts").parameters?.find((p) => p.name === "size");
    expect(sizes?.schema).to.deep.include({ type: "integer", minimum: 1, maximum: 100 });
  });

  it("gives every request and response an example that its own schema accepts", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const accepts = (schema: JsonSchema, value: unknown, where: string): void => {
      const validate = ajv.compile({ ...schema, components: document["components"] });
      expect(validate(value), `${where}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
    };
    let checked = 0;
    for (const [id, { operation }] of operations) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === "header") continue;
        expect(parameter.example, `${id} ${parameter.name}`).to.not.equal(undefined);
        accepts(parameter.schema, parameter.example, `${id} ${parameter.name}`);
        checked += 1;
      }
      const body = operation.requestBody?.content["application/json"];
      if (body !== undefined && body.example !== undefined) {
        accepts(body.schema, body.example, `${id} body`);
        checked += 1;
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const content = response.content?.["application/json"];
        if (content === undefined) continue;
        expect(content.example, `${id} ${status}`).to.not.equal(undefined);
        accepts(content.schema, content.example, `${id} ${status}`);
        checked += 1;
      }
    }
    expect(checked).to.be.greaterThan(60);
  });

  it("links each id a response holds to the operations that take one, with parameters they have", () => {
    const created = operationOf("placeOrder").responses["201"]?.links ?? {};
    expect(created["getOrder"]).to.deep.include({ parameters: { orderId: "$response.body#/orderId" } });
    expect(created["createPayment"]?.requestBody).to.deep.equal({
      orderId: "$response.body#/orderId",
      amount: "$response.body#/totalAmount",
    });
    expect(operationOf("listProducts").responses["200"]?.links?.["getProduct"]?.parameters).to.deep.equal({
      productId: "$response.body#/content/0/id",
    });
    for (const [id, { operation }] of operations) {
      for (const [name, link] of Object.entries(operation.responses).flatMap(([, r]) =>
        Object.entries(r.links ?? {}),
      )) {
        const target = operationOf(link.operationId);
        for (const parameter of Object.keys(link.parameters ?? {}))
          expect(
            target.parameters?.map((p) => p.name),
            `${id} → ${name}`,
          ).to.include(parameter);
      }
    }
  });
});

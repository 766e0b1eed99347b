import { expect } from "chai";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { contract } from "../../gen/commerce/options/v1/options_pb.js";
import { InventoryService } from "../../gen/commerce/product/v1/inventory_pb.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import { ServerReflection } from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { createDescriptorIndex } from "./descriptor-index.js";

describe("createDescriptorIndex", () => {
  const index = createDescriptorIndex([InventoryService, Health, ServerReflection]);
  const fileOf = (symbol: string): string | undefined => index.fileContainingSymbol(symbol)?.proto.name;

  it("finds the file of every kind of symbol, in the services' files and in their imports", () => {
    const expected: Record<string, string> = {
      "commerce.product.v1.InventoryService": "commerce/product/v1/inventory.proto",
      "commerce.product.v1.InventoryService.ReleaseStock": "commerce/product/v1/inventory.proto",
      "commerce.product.v1.ReleaseStockRequest": "commerce/product/v1/inventory.proto",
      "commerce.product.v1.ReleaseStockRequest.order_id": "commerce/product/v1/inventory.proto",
      // An import, its enum, and an enum value, which is scoped beside its enum.
      "commerce.options.v1.Access": "commerce/options/v1/options.proto",
      "commerce.options.v1.ACCESS_INTERNAL": "commerce/options/v1/options.proto",
      "commerce.options.v1.contract": "commerce/options/v1/options.proto",
      // Imports of imports.
      "buf.validate.FieldRules": "buf/validate/validate.proto",
      "google.protobuf.MethodOptions": "google/protobuf/descriptor.proto",
      "grpc.health.v1.Health.Check": "grpc/health/v1/health.proto",
      // A oneof.
      "grpc.reflection.v1.ServerReflectionRequest.message_request": "grpc/reflection/v1/reflection.proto",
    };
    const found = Object.fromEntries(Object.keys(expected).map((symbol) => [symbol, fileOf(symbol)]));
    expect(found).to.deep.equal(expected);
  });

  it("knows nothing it was not built from", () => {
    expect(fileOf("commerce.product.v1.ProductService")).to.equal(undefined);
    expect(fileOf("commerce.options.v1.Access.ACCESS_INTERNAL")).to.equal(undefined);
    expect(index.fileByName("commerce/product/v1/product.proto")).to.equal(undefined);
    expect(index.extensionNumbersOf("commerce.product.v1.NoSuchMessage")).to.equal(undefined);
  });

  it("lists a file with every file it imports, transitively, each once and the file first", () => {
    const file = index.fileByName("commerce/product/v1/inventory.proto");
    expect(file).to.not.equal(undefined);
    const names = index.withDependencies(file!).map((each) => each.proto.name);
    expect(names[0]).to.equal("commerce/product/v1/inventory.proto");
    expect(new Set(names).size).to.equal(names.length);
    expect(names).to.include.members([
      "commerce/options/v1/options.proto",
      "buf/validate/validate.proto",
      "google/protobuf/descriptor.proto",
    ]);
    for (const name of names) {
      const proto = fromBinary(FileDescriptorProtoSchema, index.encoded(index.fileByName(name)!));
      expect(proto.name).to.equal(name);
      expect(names, `the imports of ${name}`).to.include.members(proto.dependency);
    }
  });

  it("finds extensions by the message they extend and their number", () => {
    expect(
      index.fileContainingExtension("google.protobuf.MethodOptions", contract.number)?.proto.name,
    ).to.equal("commerce/options/v1/options.proto");
    expect(index.fileContainingExtension("google.protobuf.MethodOptions", 1)).to.equal(undefined);
    expect(index.extensionNumbersOf("google.protobuf.MethodOptions")).to.include(contract.number);
    expect(index.extensionNumbersOf("commerce.product.v1.ReleaseStockRequest")).to.deep.equal([]);
  });
});

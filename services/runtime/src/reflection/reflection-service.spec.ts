import { expect } from "chai";
import { create, createFileRegistry, fromBinary, getOption, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createAsyncIterable } from "@connectrpc/connect/protocol";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Access, contract } from "../../gen/commerce/options/v1/options_pb.js";
import { InventoryService } from "../../gen/commerce/product/v1/inventory_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { noRevokedAccounts } from "../identity/revoked-accounts.js";
import { createDestinationTrust, peerCredentialHeader, sha256 } from "../identity/request-trust.js";
import { createLogger } from "../logging/logger.js";
import { createServiceHost, type ServiceHost } from "../server/service-host.js";

type Question = v1.ServerReflectionRequest["messageRequest"];

/**
 * Server reflection on a real service port, asked as grpcurl and buf curl ask: one bidirectional
 * gRPC stream over h2c, without credentials.
 */
describe("server reflection (through the service host)", () => {
  let host: ServiceHost;
  let baseUrl: string;

  before(async () => {
    host = createServiceHost({
      routes: [
        {
          services: [InventoryService],
          register(router) {
            router.service(InventoryService, { releaseStock: () => ({ released: true }) });
          },
        },
      ],
      logger: createLogger("silent", "test"),
      maxBodyBytes: 1 << 20,
      trust: createDestinationTrust([InventoryService], {
        edgeCredentialSha256: sha256("edge"),
        callers: new Map([["order", sha256("peer")]]),
      }),
      revoked: noRevokedAccounts,
      isReady: () => true,
    });
    baseUrl = `http://127.0.0.1:${await host.listen(0, "127.0.0.1")}`;
  });

  after(() => host.close());

  /** Asks each question in turn on one v1 stream; the answers, in order. */
  async function ask(...questions: Question[]): Promise<v1.ServerReflectionResponse[]> {
    const client = createClient(v1.ServerReflection, createGrpcTransport({ baseUrl }));
    const requests = questions.map((messageRequest) =>
      create(v1.ServerReflectionRequestSchema, { host: "inventory.test", messageRequest }),
    );
    const answers: v1.ServerReflectionResponse[] = [];
    for await (const answer of client.serverReflectionInfo(createAsyncIterable(requests)))
      answers.push(answer);
    return answers;
  }

  async function askAlpha(...questions: Question[]): Promise<v1alpha.ServerReflectionResponse[]> {
    const client = createClient(v1alpha.ServerReflection, createGrpcTransport({ baseUrl }));
    const requests = questions.map((messageRequest) =>
      fromBinary(
        v1alpha.ServerReflectionRequestSchema,
        toBinary(
          v1.ServerReflectionRequestSchema,
          create(v1.ServerReflectionRequestSchema, { host: "inventory.test", messageRequest }),
        ),
      ),
    );
    const answers: v1alpha.ServerReflectionResponse[] = [];
    for await (const answer of client.serverReflectionInfo(createAsyncIterable(requests)))
      answers.push(answer);
    return answers;
  }

  function filesOf(answer: v1.ServerReflectionResponse | undefined): FileDescriptorProto[] {
    if (answer?.messageResponse.case !== "fileDescriptorResponse")
      throw new Error(`not a file answer: ${answer?.messageResponse.case}`);
    return answer.messageResponse.value.fileDescriptorProto.map((bytes) =>
      fromBinary(FileDescriptorProtoSchema, bytes),
    );
  }

  const listServices: Question = { case: "listServices", value: "" };
  const releaseStock: Question = {
    case: "fileContainingSymbol",
    value: "commerce.product.v1.InventoryService.ReleaseStock",
  };

  it("lists the port's services, health and both reflection versions", async () => {
    const [answer] = await ask(listServices);
    expect(answer?.validHost).to.equal("inventory.test");
    expect(answer?.originalRequest?.messageRequest).to.deep.equal(listServices);
    expect(answer?.messageResponse).to.deep.include({ case: "listServicesResponse" });
    const names =
      answer?.messageResponse.case === "listServicesResponse" ? answer.messageResponse.value.service : [];
    expect(names.map((service) => service.name)).to.deep.equal([
      "commerce.product.v1.InventoryService",
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
    ]);
  });

  it("answers a method with its file and every file it imports: enough to resolve the method's options", async () => {
    const files = filesOf((await ask(releaseStock))[0]);
    expect(files[0]?.name).to.equal("commerce/product/v1/inventory.proto");
    // A client that knows nothing else builds the whole schema from this one answer.
    const registry = createFileRegistry(files[0]!, (name) => files.find((file) => file.name === name));
    const method = registry
      .getService("commerce.product.v1.InventoryService")
      ?.methods.find((each) => each.name === "ReleaseStock");
    expect(method?.input.typeName).to.equal("commerce.product.v1.ReleaseStockRequest");
    expect(getOption(method!, contract).access).to.equal(Access.INTERNAL);
    expect(files.map((file) => file.name)).to.include.members([
      "commerce/options/v1/options.proto",
      "buf/validate/validate.proto",
      "google/protobuf/descriptor.proto",
    ]);
  });

  it("sends each file once per stream, but always the one asked for", async () => {
    const [first, again, options] = await ask(releaseStock, releaseStock, {
      case: "fileByFilename",
      value: "commerce/options/v1/options.proto",
    });
    expect(filesOf(first).length).to.be.greaterThan(3);
    expect(filesOf(again).map((file) => file.name)).to.deep.equal(["commerce/product/v1/inventory.proto"]);
    expect(filesOf(options).map((file) => file.name)).to.deep.equal(["commerce/options/v1/options.proto"]);
    // A new stream starts afresh.
    expect(filesOf((await ask(releaseStock))[0])).to.have.length(filesOf(first).length);
  });

  it("answers extensions: the file declaring one, and every number of a message's", async () => {
    const [declaring, numbers] = await ask(
      {
        case: "fileContainingExtension",
        value: create(v1.ExtensionRequestSchema, {
          containingType: "google.protobuf.MethodOptions",
          extensionNumber: contract.number,
        }),
      },
      { case: "allExtensionNumbersOfType", value: "google.protobuf.MethodOptions" },
    );
    expect(filesOf(declaring)[0]?.name).to.equal("commerce/options/v1/options.proto");
    expect(numbers?.messageResponse.case).to.equal("allExtensionNumbersResponse");
    if (numbers?.messageResponse.case === "allExtensionNumbersResponse") {
      expect(numbers.messageResponse.value.baseTypeName).to.equal("google.protobuf.MethodOptions");
      expect(numbers.messageResponse.value.extensionNumber).to.deep.equal([contract.number]);
    }
  });

  it("answers what it does not know with NOT_FOUND, an empty question with INVALID_ARGUMENT, and goes on", async () => {
    const answers = await ask(
      { case: "fileContainingSymbol", value: "commerce.product.v1.NoSuchThing" },
      { case: "fileByFilename", value: "commerce/product/v1/nothing.proto" },
      {
        case: "fileContainingExtension",
        value: create(v1.ExtensionRequestSchema, {
          containingType: "google.protobuf.MethodOptions",
          extensionNumber: 1,
        }),
      },
      { case: "allExtensionNumbersOfType", value: "commerce.product.v1.NoSuchThing" },
      { case: undefined },
      listServices,
    );
    expect(answers.map((answer) => answer.messageResponse)).to.deep.equal([
      ...[
        "symbol not found: commerce.product.v1.NoSuchThing",
        "file not found: commerce/product/v1/nothing.proto",
        "extension not found: google.protobuf.MethodOptions 1",
        "type not found: commerce.product.v1.NoSuchThing",
      ].map((errorMessage) => ({
        case: "errorResponse",
        value: create(v1.ErrorResponseSchema, { errorCode: Code.NotFound, errorMessage }),
      })),
      {
        case: "errorResponse",
        value: create(v1.ErrorResponseSchema, {
          errorCode: Code.InvalidArgument,
          errorMessage: "the request asks nothing",
        }),
      },
      answers[5]?.messageResponse,
    ]);
    expect(answers[5]?.messageResponse.case).to.equal("listServicesResponse");
  });

  it("gives the same answers over v1alpha, byte for byte", async () => {
    const questions: Question[] = [
      listServices,
      releaseStock,
      { case: "fileByFilename", value: "grpc/health/v1/health.proto" },
      { case: "fileContainingSymbol", value: "commerce.product.v1.NoSuchThing" },
    ];
    const current = await ask(...questions);
    const alpha = await askAlpha(...questions);
    expect(alpha.map((answer) => toBinary(v1alpha.ServerReflectionResponseSchema, answer))).to.deep.equal(
      current.map((answer) => toBinary(v1.ServerReflectionResponseSchema, answer)),
    );
  });

  it("is open to anyone, like health, while the methods it describes keep their access rule", async () => {
    const transport = createGrpcTransport({ baseUrl });
    const inventory = createClient(InventoryService, transport);
    const refused = await inventory.releaseStock({ orderId: "ord_1" }).then(
      () => undefined,
      (error: unknown) => ConnectError.from(error).code,
    );
    expect(refused).to.equal(Code.Unauthenticated);
    const answered = await inventory.releaseStock(
      { orderId: "ord_1" },
      { headers: { [peerCredentialHeader]: "peer" } },
    );
    expect(answered.released).to.equal(true);
    const health = await createClient(Health, transport).check({ service: "" });
    expect(health.status).to.equal(HealthCheckResponse_ServingStatus.SERVING);
  });
});

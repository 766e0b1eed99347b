/**
 * One product made straight at the Product service's port, as the edge would ask for it on an
 * admin's behalf (its credential for the Product service, derived from the edge secret, and the
 * caller's headers): the product the Envoy benches read.
 */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { edgeCredential, edgeCredentialHeader } from "@commerce/runtime/identity";

/** Makes a product named `name` (100 in stock) at `productUrl`; resolves its id. */
export async function createProductAtService(
  productUrl: string,
  edgeSecret: string,
  name: string,
): Promise<string> {
  const products = createClient(ProductService, createGrpcTransport({ baseUrl: productUrl }));
  const create = (credential: string) =>
    products.bulkCreateProducts(
      { products: [{ name, price: 499.99, stock: 100, brand: "Bench", categoryId: "books" }] },
      {
        headers: {
          [edgeCredentialHeader]: credential,
          "x-user-email": "bench@bench.test",
          "x-user-role": "ADMIN",
          "x-user-id": "1",
        },
      },
    );
  const { ids } = await create(edgeCredential(edgeSecret, "product")).catch((error: unknown) => {
    // A baseline revision from before ADR 0105 takes the edge secret itself, from every edge.
    if (ConnectError.from(error).code === Code.Unauthenticated) return create(edgeSecret);
    throw error;
  });
  const [id] = ids;
  if (id === undefined) throw new Error("the Product service made no product");
  return id;
}

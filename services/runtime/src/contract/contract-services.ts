/**
 * Every service of the contract, public and internal. The edge routes those with
 * `google.api.http` rules; tests check each method's options against this list.
 */
import type { DescService } from "@bufbuild/protobuf";
import { AnalyticsService } from "../../gen/commerce/analytics/v1/analytics_pb.js";
import { AccountService } from "../../gen/commerce/auth/v1/account_pb.js";
import { AuthService } from "../../gen/commerce/auth/v1/auth_pb.js";
import { NotificationService } from "../../gen/commerce/notification/v1/notification_pb.js";
import { OrderService } from "../../gen/commerce/order/v1/order_pb.js";
import { PayableOrderService } from "../../gen/commerce/order/v1/payable_pb.js";
import { PaymentService } from "../../gen/commerce/payment/v1/payment_pb.js";
import { SandboxCheckoutService } from "../../gen/commerce/payment/v1/sandbox_checkout_pb.js";
import { InventoryService } from "../../gen/commerce/product/v1/inventory_pb.js";
import { ProductLookupService } from "../../gen/commerce/product/v1/lookup_pb.js";
import { ProductService } from "../../gen/commerce/product/v1/product_pb.js";
import {
  CustomerRecommendationService,
  RecommendationService,
} from "../../gen/commerce/recommendation/v1/recommendation_pb.js";
import { DirectoryService } from "../../gen/commerce/user/v1/directory_pb.js";
import { UserService } from "../../gen/commerce/user/v1/user_pb.js";

export const publicServices: readonly DescService[] = [
  AuthService,
  UserService,
  ProductService,
  OrderService,
  PaymentService,
  SandboxCheckoutService,
  NotificationService,
  AnalyticsService,
  RecommendationService,
];

export const internalServices: readonly DescService[] = [
  AccountService,
  DirectoryService,
  InventoryService,
  ProductLookupService,
  PayableOrderService,
  CustomerRecommendationService,
];

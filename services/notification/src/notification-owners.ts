/**
 * The recipients of the notifications stored before recipients were kept by id (ADR 0101). Each
 * names its recipient only by email:
 *   - a notice about an order or a payment names its order in its text: it is the order's
 *     owner's, as the Order service knows it (`GetPayableOrder`; an order whose owner it does not
 *     know yet leaves the notice for a later pass), provided the order's email is the notice's;
 *   - any other (a welcome, a sign-in, a catalog notice to an admin) is the account's that the
 *     Auth service says held the email when the event happened (`FindEmailHolders`).
 * Otherwise it is nobody's (0): only admins see it. An order's later events (its confirmation,
 * its payment) may come after its email passed to another account, which is why they go by the
 * order and not by their time.
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { emailHoldersOf } from "@commerce/runtime/identity";
import { patientPeerCall } from "@commerce/runtime/resilience";
import { changeDocument, unchanged, type Collection, type FieldBackfill } from "@commerce/runtime/store";
import type { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import type { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { orderNamedBy, orderNoticeTypes } from "./notification-rules.js";
import type { NotificationDocument } from "./notification-store.js";

export interface NotificationOwnersDeps {
  readonly notifications: Collection<NotificationDocument>;
  readonly accounts: Client<typeof AccountService>;
  readonly orders: Client<typeof PayableOrderService>;
}

const optionsOf = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal });

export function notificationOwners(
  deps: NotificationOwnersDeps,
): FieldBackfill<NotificationDocument, number> {
  /** The owner of order `orderId` if its email is `email`; undefined while not known yet. */
  async function orderOwner(
    orderId: string,
    email: string,
    signal: AbortSignal,
  ): Promise<number | undefined> {
    try {
      const order = await patientPeerCall(
        (callSignal) => deps.orders.getPayableOrder({ orderId }, optionsOf(callSignal)),
        { signal },
      );
      if (order.customerId.toLowerCase() !== email) return 0;
      return order.customerUserId;
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) return 0;
      throw error;
    }
  }

  /** The holder of each email when its notice's event happened. */
  function holders(notices: readonly NotificationDocument[], signal: AbortSignal): Promise<number[]> {
    const queries = notices.map((notice) => {
      const at = Date.parse(notice.occurredAt);
      return { email: notice.userEmail, atMs: Number.isNaN(at) ? 0 : at };
    });
    return emailHoldersOf(deps.accounts, queries, signal);
  }

  return {
    description: "the recipient's user id of every notification stored before recipients were kept by id",
    collection: deps.notifications,
    field: "userId",
    async decide(batch, signal) {
      const byOrder = new Map<string, number | undefined>();
      const values: (number | undefined)[] = [];
      const others: NotificationDocument[] = [];
      for (const notice of batch) {
        if (!orderNoticeTypes.has(notice.eventType)) {
          others.push(notice);
          values.push(undefined); // filled in below
          continue;
        }
        const orderId = orderNamedBy(notice.message);
        if (orderId === undefined) {
          values.push(0);
          continue;
        }
        const key = `${orderId}\n${notice.userEmail}`;
        if (!byOrder.has(key)) byOrder.set(key, await orderOwner(orderId, notice.userEmail, signal));
        values.push(byOrder.get(key));
      }
      const held = await holders(others, signal);
      let next = 0;
      return batch.map((notice, i) => (orderNoticeTypes.has(notice.eventType) ? values[i] : held[next++]));
    },
    async write(notice, userId, signal) {
      await changeDocument(
        deps.notifications,
        notice._id,
        (current) => (current.userId !== undefined ? unchanged : { ...current, userId }),
        signal,
      );
    },
  };
}

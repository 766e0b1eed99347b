import type { ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@commerce/runtime/identity";
import type { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import type { AddressDocument } from "./profile-store.js";
import type { Profiles } from "./profiles.js";

/** REST: /api/users/me, /api/users/addresses[/{addressId}], /api/users[/{userId}]. */
export function createUserHandler(profiles: Profiles): ServiceImpl<typeof UserService> {
  return {
    async getMe(_req, ctx) {
      const p = await profiles.getMe(requireCaller(ctx), ctx.signal);
      return {
        id: p._id,
        fullName: p.fullName,
        email: p.email,
        phoneNo: p.phoneNo,
        role: p.role,
        createdAt: p.createdAt,
      };
    },
    async updateMe(req, ctx) {
      await profiles.updateMe(
        requireCaller(ctx),
        { fullName: req.fullName, phoneNo: req.phoneNo },
        ctx.signal,
      );
      return { message: "profile updated" };
    },
    async addAddress(req, ctx) {
      // The validation interceptor has enforced `required` on `address`.
      if (req.address !== undefined) await profiles.addAddress(requireCaller(ctx), req.address, ctx.signal);
      return { message: "address added" };
    },
    async listAddresses(_req, ctx) {
      return { addresses: (await profiles.listAddresses(requireCaller(ctx), ctx.signal)).map(toAddress) };
    },
    async updateAddress(req, ctx) {
      if (req.address !== undefined) {
        await profiles.updateAddress(requireCaller(ctx), req.addressId, req.address, ctx.signal);
      }
      return { message: "address updated" };
    },
    async deleteAddress(req, ctx) {
      await profiles.deleteAddress(requireCaller(ctx), req.addressId, ctx.signal);
      return {};
    },
    async listUsers(_req, ctx) {
      return {
        users: (await profiles.listUsers(ctx.signal)).map((p) => ({
          id: p._id,
          email: p.email,
          role: p.role,
        })),
      };
    },
    async deleteUser(req, ctx) {
      await profiles.deleteUser(requireCaller(ctx), req.userId, ctx.signal);
      return {};
    },
  };
}

function toAddress(a: AddressDocument): {
  id: number;
  street: string;
  city: string;
  state: string;
  pincode: string;
} {
  return { id: a._id, street: a.street, city: a.city, state: a.state, pincode: a.pincode };
}

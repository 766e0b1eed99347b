import type { ServiceImpl } from "@connectrpc/connect";
import type { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import type { Role } from "@commerce/runtime/identity";
import type { Profiles } from "./profiles.js";

/** Internal: the Auth service creates a new account's profile here. */
export function createDirectoryHandler(profiles: Profiles): ServiceImpl<typeof DirectoryService> {
  return {
    async createProfile(req, ctx) {
      const created = await profiles.createProfile(
        {
          userId: req.userId,
          email: req.email,
          fullName: req.fullName,
          phoneNo: req.phoneNo,
          role: req.role as Role, // validated: CUSTOMER or ADMIN
          createdAt: req.createdAt,
        },
        ctx.signal,
      );
      return { created };
    },
  };
}

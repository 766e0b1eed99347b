/**
 * Consumes USER_REGISTERED: creates the profile when the synchronous call from Auth did not
 * (Auth or the network failed in between). Idempotent: the profile's id is the user id, so a
 * redelivered event finds it there and changes nothing.
 */
import { type EventHandler, eventContract, parseEventData } from "@commerce/runtime/events";
import { UserRegisteredSchema } from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import type { Role } from "@commerce/runtime/identity";
import type { Profiles } from "./profiles.js";

export const registrationTopic = eventContract(UserRegisteredSchema).topic;

export function createRegistrationConsumer(profiles: Profiles): EventHandler {
  const { type } = eventContract(UserRegisteredSchema);
  return async (record, signal) => {
    if (record.type !== type) return; // other auth events are not ours
    const event = parseEventData(UserRegisteredSchema, record);
    await profiles.createProfile(
      {
        userId: event.userId,
        email: event.email,
        fullName: event.fullName,
        phoneNo: event.phoneNo,
        role: event.role === "ADMIN" ? "ADMIN" : ("CUSTOMER" satisfies Role),
        createdAt: event.registeredAt,
      },
      signal,
    );
  };
}

import type { FlavourContext } from "../events/types.js";
import { hasCapability, type ChatEvent } from "../events/types.js";

/**
 * delete_message for one queue: one event with message_ids for clients with the
 * bulk_message_deletion capability, else Zulip's legacy form, one event per message.
 */
export function deleteMessageFlavour(event: ChatEvent, ctx: FlavourContext): ChatEvent | ChatEvent[] {
  if (hasCapability(ctx.options, "bulk_message_deletion")) return event;
  const { message_ids: ids, ...rest } = event as ChatEvent & { message_ids: number[] };
  return ids.map((id) => ({ ...rest, message_id: id }));
}

import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { accessChannelById } from "../permissions/channel-access.js";
import { validateColor } from "../lib/channel-validation.js";
import { subscriptionEvents } from "../presenters/events/channels.js";
import { invalidateChannels } from "./channels.js";
import { loadWorld } from "../cache/world.js";

/** POST /users/me/subscriptions/properties: a user's own settings of their subscriptions. */

const BOOLEAN_PROPERTIES = [
  "is_muted",
  "in_home_view",
  "pin_to_top",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify",
] as const;
/** Notification settings: null means "inherit the user's default". */
const INHERITABLE: ReadonlySet<string> = new Set([
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify",
]);

export interface SubscriptionPropertyChange {
  stream_id: number;
  property: string;
  value: unknown;
}

type ValidChange = { stream_id: number; property: string; value: string | boolean | null };

function validatePropertyChange(change: SubscriptionPropertyChange): ValidChange {
  const { property, value } = change;
  if (property === "color") {
    if (typeof value !== "string") throw badRequest("color is not a string");
    return { stream_id: change.stream_id, property, value: validateColor(value, "color") };
  }
  if ((BOOLEAN_PROPERTIES as readonly string[]).includes(property)) {
    if (value === null && INHERITABLE.has(property)) return { stream_id: change.stream_id, property, value };
    if (typeof value !== "boolean") throw badRequest(`${property} is not a boolean`);
    return { stream_id: change.stream_id, property, value };
  }
  throw badRequest(`Unknown subscription property: ${property}`);
}

/**
 * Changes the caller's own settings of subscriptions: all validated first, then applied
 * in one transaction. Each change is an event to the caller alone.
 */
export async function checkUpdateSubscriptionProperties(
  app: App,
  actor: UserRow,
  changes: readonly SubscriptionPropertyChange[],
): Promise<void> {
  const valid = changes.map(validatePropertyChange);
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const realmId = actor.realm_id;
    for (const change of valid) {
      const channel = accessChannelById(world, actor, change.stream_id, { allowArchived: true });
      const sub = world.channels.subscription(actor.id, channel.id);
      if (!sub || !bool(sub.active)) throw badRequest(`Not subscribed to channel ID ${channel.id}`);
      const send = (property: string, value: unknown) =>
        tx.sendEventOnCommit(realmId, subscriptionEvents.update(channel.id, property, value), [actor.id]);
      if (change.property === "is_muted" || change.property === "in_home_view") {
        const muted = change.property === "is_muted" ? change.value === true : change.value === false;
        await tx.knex("subscriptions").where({ id: sub.id }).update({ is_muted: muted });
        send("in_home_view", !muted);
        send("is_muted", muted);
      } else {
        await tx
          .knex("subscriptions")
          .where({ id: sub.id })
          .update({ [change.property]: change.value });
        send(change.property, change.value);
      }
    }
    invalidateChannels(app, tx, realmId);
  });
}

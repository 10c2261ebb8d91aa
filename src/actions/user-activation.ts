import { subscriptionEvents } from "../presenters/events/channels.js";
import { realmUserEvents } from "../presenters/events/users.js";
import { realmBotEvents } from "../presenters/events/bots.js";
import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import {
  badRequest,
  cannotDeactivateLastUser,
  insufficientPermission,
  mustBeAdmin,
  mustBeOwner,
  noSuchUser,
} from "../errors.js";
import { accessUserById } from "../lib/access-users.js";
import { activeUserIds } from "../lib/recipients.js";
import { validateBotNameAvailable } from "../lib/user-validation.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isAdminRole, isOwnerRole } from "../world/roles.js";
import { BOT_TYPE } from "../world/bots.js";
import { channelViewerIds } from "../permissions/channel-access.js";
import { botAdministratorIds, canAdministerBot, mayCreateBot } from "../permissions/bots.js";
import { reloadBot, sendBotOwnerUpdateEvents, sendBotUpdate } from "./bot-events.js";
import { doClearDefaultChannelsHiddenFrom, doRemoveBotFromChannelsHiddenFrom } from "./bot-owner.js";
import { doEndUserSessions } from "./sessions.js";
import { actorIsOwner, isOnlyOwner, realmTransaction, sendGroupMembersEvent, type Actor } from "./users.js";

/**
 * Group member lists show active users only, so (de)activating a user changes every
 * named group they belong to directly; clients learn it through member events.
 */
function sendMembershipEventsForActivation(
  tx: Tx,
  snapshot: RealmSnapshot,
  userId: number,
  active: boolean,
): void {
  for (const node of snapshot.groups.values()) {
    if (node.row.name !== null && node.members.includes(userId)) {
      sendGroupMembersEvent(tx, snapshot, active ? "add_members" : "remove_members", node.row.id, [userId]);
    }
  }
}

/**
 * Deactivates a user and the active bots they own. Their web sessions end with it (and are
 * deleted: a reactivated user logs in again); the event hub drops their event queues when
 * it publishes the deactivation events.
 */
export async function doDeactivateUser(app: App, tx: Tx, target: UserRow): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  const bots = [...snapshot.users].filter(
    (u) => bool(u.is_bot) && u.bot_owner_id === target.id && bool(u.is_active),
  );
  const channels = await app.channels.get(tx.knex, target.realm_id);
  for (const user of [...bots, target]) {
    await tx.knex("users").where({ id: user.id }).update({ is_active: false });
    await tx.knex("subscriptions").where({ user_id: user.id }).update({ is_user_active: false });
    await doEndUserSessions(app, tx, user.id);
    tx.sendEventOnCommit(
      target.realm_id,
      realmUserEvents.update({ user_id: user.id, is_active: false }),
      activeUserIds(snapshot),
    );
    sendMembershipEventsForActivation(tx, snapshot, user.id, false);
    await sendSubscriberActivationEvents(app, tx, snapshot, user.id, "peer_remove");
    if (bool(user.is_bot)) {
      tx.sendEventOnCommit(
        target.realm_id,
        realmBotEvents.update({ user_id: user.id, is_active: false }),
        botAdministratorIds(snapshot, channels, user),
      );
    }
  }
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
}

/**
 * DELETE /users/{user_id} (administrators; the endpoint checks): only an owner may
 * deactivate an owner, and never the only one. Bots are managed through /bots, so the
 * API does not reach them; the operator may.
 */
export async function checkDeactivateUser(
  app: App,
  realmId: number,
  actor: Actor,
  targetId: number,
): Promise<void> {
  await realmTransaction(app, realmId, async (tx, snapshot) => {
    const target = accessUserById(snapshot, targetId);
    if (bool(target.is_bot) && actor !== "operator") throw noSuchUser();
    if (!bool(target.is_active)) throw badRequest("User is deactivated");
    if (isOwnerRole(target.role) && !actorIsOwner(actor)) throw mustBeOwner();
    if (isOnlyOwner(snapshot, target)) throw badRequest("Cannot deactivate the only organization owner");
    await doDeactivateUser(app, tx, target);
  });
}

/**
 * DELETE /users/me: anyone, bots and guests included, deactivates themselves, except the
 * realm's last active account (bots count, as in Zulip) and its only human owner.
 */
export async function checkDeactivateOwnUser(app: App, user: UserRow): Promise<void> {
  await realmTransaction(app, user.realm_id, async (tx, snapshot) => {
    const me = accessUserById(snapshot, user.id);
    if (!bool(me.is_active)) return;
    if (activeUserIds(snapshot).length === 1) throw cannotDeactivateLastUser(false);
    if (isOnlyOwner(snapshot, me)) throw cannotDeactivateLastUser(true);
    await doDeactivateUser(app, tx, me);
  });
}

/**
 * Reactivates a user. A bot whose owner is deactivated passes to the user reactivating
 * it (never to the operator), as in Zulip, keeping only what they may reach (bot-owner.ts).
 */
export async function doReactivateUser(
  app: App,
  tx: Tx,
  target: UserRow,
  actor: Actor = "operator",
): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  await tx.knex("users").where({ id: target.id }).update({ is_active: true });
  await tx.knex("subscriptions").where({ user_id: target.id }).update({ is_user_active: true });
  const previousOwner = target.bot_owner_id === null ? undefined : snapshot.user(target.bot_owner_id);
  const ownerChanges =
    bool(target.is_bot) &&
    actor !== "operator" &&
    previousOwner !== undefined &&
    !bool(previousOwner.is_active);
  if (ownerChanges) {
    await doClearDefaultChannelsHiddenFrom(app, tx, await reloadBot(tx, target.id), actor);
    await tx.knex("users").where({ id: target.id }).update({ bot_owner_id: actor.id });
  }
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  tx.sendEventOnCommit(target.realm_id, realmUserEvents.update({ user_id: target.id, is_active: true }), [
    ...activeUserIds(snapshot),
    target.id,
  ]);
  if (bool(target.is_bot)) {
    const bot = await reloadBot(tx, target.id);
    await sendBotUpdate(app, tx, bot, { user_id: bot.id, is_active: true });
    if (ownerChanges) await sendBotOwnerUpdateEvents(app, tx, bot, actor, previousOwner);
  }
  sendMembershipEventsForActivation(tx, snapshot, target.id, true);
  await sendSubscriberActivationEvents(app, tx, snapshot, target.id, "peer_add");
  // Back in its channels, the bot leaves those its new owner may not read.
  if (ownerChanges) await doRemoveBotFromChannelsHiddenFrom(app, tx, await reloadBot(tx, target.id), actor);
}

/**
 * Subscriber lists show active users only: a user's (de)activation removes them from, or
 * returns them to, the subscriber lists of their channels, for everyone who sees those.
 */
async function sendSubscriberActivationEvents(
  app: App,
  tx: Tx,
  snapshot: RealmSnapshot,
  userId: number,
  op: "peer_add" | "peer_remove",
): Promise<void> {
  const channels = await app.channels.get(tx.knex, snapshot.realm.id);
  for (const subscription of channels.subscriptionsOf(userId)) {
    if (!bool(subscription.active)) continue;
    const channel = channels.channel(subscription.stream_id);
    if (!channel) continue;
    const viewers = channelViewerIds(snapshot, channel, channels.subscriberIds(channel.id));
    viewers.delete(userId);
    tx.sendEventOnCommit(snapshot.realm.id, subscriptionEvents.peers(op, [channel.id], [userId]), viewers);
  }
}

/**
 * POST /users/{user_id}/reactivate: administrators reactivate users, and a bot's owner
 * may reactivate the bot too (Zulip's can_admin_user). A bot comes back only if the
 * one reactivating it may create such a bot and no other active user has its name.
 * Reactivating an active user changes nothing, as in Zulip (which has no such check).
 */
export async function checkReactivateUser(
  app: App,
  realmId: number,
  actor: Actor,
  targetId: number,
): Promise<void> {
  await realmTransaction(app, realmId, async (tx, snapshot) => {
    const target = accessUserById(snapshot, targetId);
    if (actor !== "operator") {
      if (!bool(target.is_bot) && !isAdminRole(actor.role)) throw mustBeAdmin();
      if (bool(target.is_bot)) {
        if (!canAdministerBot(actor, target)) throw insufficientPermission();
        if (!mayCreateBot(snapshot, actor, target.bot_type ?? BOT_TYPE.GENERIC))
          throw insufficientPermission();
        validateBotNameAvailable(snapshot, target.full_name, { activation: true, exceptUserId: target.id });
      }
    }
    if (bool(target.is_mirror_dummy)) {
      throw badRequest("Cannot activate a placeholder account; ask the user to sign up, instead.");
    }
    if (bool(target.is_active)) return;
    await doReactivateUser(app, tx, target, actor);
  });
}

import { VIEWER_SEES_EMAIL, realmUserEvents } from "../presenters/events/users.js";
import type { App } from "../app.js";
import { emailHost } from "../config.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { dummyEmail } from "../lib/emails.js";
import { clientMayComputeGravatar, gravatarUrl } from "../presenters/users.js";
import { EMAIL_VISIBILITY, canSeeDeliveryEmail } from "../permissions/email-visibility.js";

/**
 * Zulip's notify_avatar_url_change: the user's avatar, to everyone; each recipient's
 * client_gravatar treatment depends on whether they may see the (changed) user's email.
 */
function sendAvatarUpdate(tx: Tx, changed: UserRow, viewers: readonly UserRow[]): void {
  const person = {
    user_id: changed.id,
    avatar_source: changed.avatar_source,
    avatar_url: gravatarUrl(changed.delivery_email, changed.avatar_version),
    avatar_url_medium: gravatarUrl(changed.delivery_email, changed.avatar_version, true),
    avatar_version: changed.avatar_version,
  };
  tx.sendEventOnCommit(
    changed.realm_id,
    realmUserEvents.update(person),
    new Map(viewers.map((v) => [v.id, { [VIEWER_SEES_EMAIL]: clientMayComputeGravatar(v, changed) }])),
  );
}

/**
 * Changes a user's real email. Those who may see it are told the new delivery_email;
 * a gravatar follows the address, so everyone gets the new avatar; and when the email
 * is public, the API email changes too (new_email).
 */
export async function doChangeDeliveryEmail(app: App, tx: Tx, target: UserRow, email: string): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  const publicEmail = target.email_address_visibility === EMAIL_VISIBILITY.EVERYONE;
  await tx
    .knex("users")
    .where({ id: target.id })
    .update(publicEmail ? { delivery_email: email, email } : { delivery_email: email });
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  const viewers = [...snapshot.users].filter((u) => bool(u.is_active));
  tx.sendEventOnCommit(
    target.realm_id,
    realmUserEvents.update({ user_id: target.id, delivery_email: email }),
    viewers.filter((v) => canSeeDeliveryEmail(v, target)).map((v) => v.id),
  );
  if (target.avatar_source === "G") sendAvatarUpdate(tx, { ...target, delivery_email: email }, viewers);
  if (publicEmail) {
    tx.sendEventOnCommit(
      target.realm_id,
      realmUserEvents.update({ user_id: target.id, new_email: email }),
      viewers.map((v) => v.id),
    );
  }
}

/**
 * After a user changed who may see their real email (the users row already holds the
 * new value): those who gain or lose sight of it learn the delivery_email (or null);
 * and since the API email is the real one only while everyone may see it, a change to
 * or from "everyone" gives the user a new API email (new_email) and everyone the avatar
 * again, as Zulip's do_change_user_setting does. Returns the user's API email afterwards.
 */
export async function doChangeEmailVisibility(
  app: App,
  tx: Tx,
  target: UserRow,
  before: number,
  after: number,
): Promise<string> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  const viewers = [...snapshot.users].filter((u) => bool(u.is_active));
  const old = { ...target, email_address_visibility: before };
  const changed = { ...target, email_address_visibility: after };
  const gained = viewers.filter((v) => !canSeeDeliveryEmail(v, old) && canSeeDeliveryEmail(v, changed));
  const lost = viewers.filter((v) => canSeeDeliveryEmail(v, old) && !canSeeDeliveryEmail(v, changed));
  for (const [delivery_email, recipients] of [
    [target.delivery_email, gained],
    [null, lost],
  ] as const) {
    if (recipients.length === 0) continue;
    tx.sendEventOnCommit(
      target.realm_id,
      realmUserEvents.update({ user_id: target.id, delivery_email }),
      recipients.map((v) => v.id),
    );
  }
  if (before !== EMAIL_VISIBILITY.EVERYONE && after !== EMAIL_VISIBILITY.EVERYONE) return target.email;
  const email =
    after === EMAIL_VISIBILITY.EVERYONE
      ? target.delivery_email
      : dummyEmail(target.id, emailHost(app.config));
  if (email === target.email) return email;
  await tx.knex("users").where({ id: target.id }).update({ email });
  tx.afterCommit(() => app.realms.invalidate(target.realm_id));
  tx.sendEventOnCommit(
    target.realm_id,
    realmUserEvents.update({ user_id: target.id, new_email: email }),
    viewers.map((v) => v.id),
  );
  sendAvatarUpdate(tx, { ...changed, email }, viewers);
  return email;
}

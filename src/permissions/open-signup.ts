import { bool } from "../db/rows.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * Whether anyone may sign up without an invitation (Zulip's invite_required off): the
 * login page's Sign up link, /register/ and the accounts it makes all ask this.
 */
export const openSignUpAllowed = (realm: RealmSnapshot) =>
  !bool(realm.realm.invite_required) && !bool(realm.realm.deactivated);

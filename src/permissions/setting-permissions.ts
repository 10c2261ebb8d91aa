import type { ChannelRow } from "../db/channel-rows.js";
import type { UserRow } from "../db/rows.js";
import type { RealmSnapshot } from "../world/realm.js";
import { userHasPermission } from "./group-settings.js";
import {
  CHANNEL_GROUP_SETTINGS,
  REALM_GROUP_SETTINGS,
  type ChannelGroupSettingName,
  type RealmGroupSettingName,
} from "./setting-registry.js";

/** Does the organization-level setting (realm_<name>) grant the user the permission? */
export function userHasRealmPermission(
  snapshot: RealmSnapshot,
  user: UserRow,
  setting: RealmGroupSettingName,
): boolean {
  const groupId = snapshot.realm[`${setting}_id`] as number | null;
  return userHasPermission(snapshot, user, groupId, REALM_GROUP_SETTINGS[setting]);
}

/** Does the channel's setting grant the user the permission (by membership alone)? */
export function userHasChannelPermission(
  snapshot: RealmSnapshot,
  user: UserRow,
  channel: ChannelRow,
  setting: ChannelGroupSettingName,
): boolean {
  return userHasPermission(snapshot, user, channel[`${setting}_id`], CHANNEL_GROUP_SETTINGS[setting]);
}

import { createHash } from "node:crypto";
import { bool, int, type UserRow } from "../db/rows.js";
import { ROLE, isAdminRole, isOwnerRole } from "../world/roles.js";
import { canSeeDeliveryEmail } from "../permissions/email-visibility.js";

/** Email -> MD5, memoized: message lists and user lists hash the same few senders over and over. */
const gravatarHashes = new Map<string, string>();

export function gravatarUrl(email: string, version: number, medium = false): string {
  const key = email.toLowerCase();
  let hash = gravatarHashes.get(key);
  if (hash === undefined) {
    if (gravatarHashes.size >= 10_000) gravatarHashes.clear();
    hash = createHash("md5").update(key).digest("hex");
    gravatarHashes.set(key, hash);
  }
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${version}${medium ? "&s=500" : ""}`;
}

/**
 * The avatar URL, or null when the client computes gravatars itself: `clientGravatar`
 * says the client asked to (client_gravatar) and may (see `clientMayComputeGravatar`).
 */
export function avatarUrl(target: UserRow, clientGravatar: boolean, medium = false): string | null {
  const uploaded = uploadedAvatarUrl(target, medium);
  if (uploaded !== null) return uploaded;
  if (clientGravatar && target.avatar_source === "G") return null;
  return gravatarUrl(target.delivery_email, target.avatar_version, medium);
}

/**
 * An uploaded avatar (avatar_source "U"), served by chatd under /user_avatars (relative,
 * as Zulip's local storage gives it); the file name holds the version, the query repeats it.
 */
export function uploadedAvatarUrl(target: UserRow, medium = false): string | null {
  if (target.avatar_source !== "U" || !target.avatar_file) return null;
  return `/user_avatars/${target.avatar_file}${medium ? "-medium" : ""}.png?version=${target.avatar_version}`;
}

/**
 * SPEC's client_gravatar rule: avatar_url is null only where the requester can see the
 * real email (and so compute the gravatar) and the avatar is a gravatar.
 */
export const clientMayComputeGravatar = (viewer: UserRow | null, target: UserRow) =>
  canSeeDeliveryEmail(viewer, target);

/** Python's isoformat(timespec="minutes") in UTC, as Zulip shows date_joined. */
export function isoMinutes(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 16)}+00:00`;
}

export type { ProfileFieldValue } from "../lib/custom-profile-fields.js";
import type { ProfileData } from "../lib/custom-profile-fields.js";

export interface PresentUserOptions {
  clientGravatar: boolean;
  /** Field ID -> value for this user; given only when custom fields were requested. */
  profileData?: ProfileData;
}

export type ApiUser = Record<string, unknown>;

/** A User record as Zulip's format_user_row shapes it, for one viewer. */
export function presentUser(viewer: UserRow | null, target: UserRow, options: PresentUserOptions): ApiUser {
  const isBot = bool(target.is_bot);
  const user: ApiUser = {
    email: target.email,
    user_id: target.id,
    avatar_version: target.avatar_version,
    is_admin: isAdminRole(target.role),
    is_owner: isOwnerRole(target.role),
    is_guest: target.role === ROLE.GUEST,
    role: target.role,
    is_bot: isBot,
    full_name: target.full_name,
    timezone: target.timezone,
    is_active: bool(target.is_active),
    date_joined: isoMinutes(int(target.date_joined)),
    delivery_email: canSeeDeliveryEmail(viewer, target) ? target.delivery_email : null,
    avatar_url: avatarUrl(target, options.clientGravatar && clientMayComputeGravatar(viewer, target)),
    is_imported_stub: bool(target.is_imported_stub),
    bot_type: isBot ? target.bot_type : null,
    bot_owner_id: isBot ? target.bot_owner_id : null,
  };
  if (bool(target.is_deleted)) user.is_deleted = true;
  if (!isBot && options.profileData) user.profile_data = options.profileData;
  return user;
}

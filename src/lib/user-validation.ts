import { bool } from "../db/rows.js";
import { badRequest } from "../errors.js";
import type { RealmSnapshot } from "../world/realm.js";

/** The checks of a user's name, email and password, against the realm as it stands. */

const MAX_FULL_NAME_LENGTH = 100;
const MIN_API_PASSWORD_LENGTH = 6;
const NAME_INVALID_CHARS = /[*`\\>"@]/;

/** Zulip's check_full_name: returns the trimmed name or refuses it. */
export function validateFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_FULL_NAME_LENGTH) throw badRequest("Name too long!");
  if (!name) throw badRequest("Name must not be empty!");
  // eslint-disable-next-line no-control-regex
  if (NAME_INVALID_CHARS.test(name) || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest("Invalid characters in name!");
  }
  if (/\|\d+$/.test(name)) throw badRequest("Invalid format!");
  return name;
}

const nameKey = (name: string) => name.normalize("NFKC").toLowerCase();

/** In realms that require unique names, no other user may have the same (case-folded) name. */
export function validateNameAvailable(snapshot: RealmSnapshot, name: string, exceptUserId?: number): void {
  if (!bool(snapshot.realm.require_unique_names)) return;
  for (const user of snapshot.users) {
    if (user.id !== exceptUserId && nameKey(user.full_name) === nameKey(name)) {
      throw badRequest("Unique names required in this organization.");
    }
  }
}

/**
 * Zulip's check_bot_name_available: no active user of the realm may have exactly this
 * name (a guard against mistakes, not a guarantee of unique names).
 */
export function validateBotNameAvailable(
  snapshot: RealmSnapshot,
  fullName: string,
  options: { activation?: boolean; exceptUserId?: number } = {},
): void {
  const name = fullName.trim();
  const taken = [...snapshot.users].some(
    (u) => bool(u.is_active) && u.id !== options.exceptUserId && u.full_name === name,
  );
  if (!taken) return;
  if (options.activation) {
    throw badRequest(
      `There is already an active bot named "${fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
    );
  }
  throw badRequest("Name is already in use.");
}

/** No other user of the realm may have the address, as real or API email (any case). */
export function validateEmailAvailable(snapshot: RealmSnapshot, email: string, exceptUserId?: number): void {
  const holder = snapshot.userByEmail(email);
  if (holder && holder.id !== exceptUserId) throw badRequest(`Email '${email}' already in use`);
}

/** Zulip's password strength gate for accounts created by administrators. */
export function validatePasswordStrength(password: string): string {
  if (password.length < MIN_API_PASSWORD_LENGTH) throw badRequest("The password is too weak.");
  return password;
}

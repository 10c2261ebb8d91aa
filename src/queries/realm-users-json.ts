import type { UserRow } from "../db/rows.js";
import { bool } from "../db/rows.js";
import type { ProfileData } from "../lib/custom-profile-fields.js";
import { RawJson } from "../lib/raw-json.js";
import { presentUser } from "../presenters/users.js";
import type { RealmSnapshot } from "../world/realm.js";

type Profiles = ReadonlyMap<number, ProfileData>;

/**
 * /register's `realm_users` and `realm_non_active_users`, encoded once per realm snapshot
 * and shared by every register that sees the realm alike. Presenting and serializing
 * everyone costs a few microseconds per person per register: at thousands of people and
 * registers that is most of a core, and one long synchronous stretch that every other
 * request waits behind.
 *
 * A person's record depends on the viewer only through canSeeDeliveryEmail (the viewer's
 * role, or being that person) and client_gravatar; the custom profile values come from
 * the user-state cache, whose map is replaced on every profile change, so the map is part
 * of the cache key. The viewer's own record is presented afresh.
 */

/** One list's JSON text and where each person's record sits in it (byte offsets). */
interface EncodedList {
  text: Buffer;
  spans: Map<number, readonly [number, number]>;
}

interface EncodedPeople {
  profiles: Profiles;
  active: EncodedList;
  inactive: EncodedList;
}

/** Per snapshot (dropped with it), per viewer class: the encoded lists. */
const cache = new WeakMap<RealmSnapshot, Map<string, EncodedPeople>>();

export interface RealmUsersJson {
  active: RawJson;
  inactive: RawJson;
}

/** What presentUser gives for a realm_users entry (is_active goes without saying there). */
function person(viewer: UserRow, target: UserRow, clientGravatar: boolean, profiles: Profiles) {
  const profileData = bool(target.is_bot) ? undefined : (profiles.get(target.id) ?? {});
  const record = presentUser(viewer, target, { clientGravatar, profileData });
  delete record.is_active;
  return record;
}

function encodeList(records: Array<{ id: number; json: string }>): EncodedList {
  const spans = new Map<number, readonly [number, number]>();
  let offset = 1; // "["
  for (const { id, json } of records) {
    const length = Buffer.byteLength(json);
    spans.set(id, [offset, offset + length]);
    offset += length + 1; // and "," or "]"
  }
  return { text: Buffer.from(`[${records.map((r) => r.json).join(",")}]`), spans };
}

function encodePeople(
  realm: RealmSnapshot,
  viewer: UserRow,
  clientGravatar: boolean,
  profiles: Profiles,
): EncodedPeople {
  const active: Array<{ id: number; json: string }> = [];
  const inactive: Array<{ id: number; json: string }> = [];
  // Anyone of the viewer's role but no one in the list: the viewer's own record differs.
  const anyone: UserRow = { ...viewer, id: 0 };
  for (const target of realm.users) {
    const json = JSON.stringify(person(anyone, target, clientGravatar, profiles));
    (bool(target.is_active) ? active : inactive).push({ id: target.id, json });
  }
  return { profiles, active: encodeList(active), inactive: encodeList(inactive) };
}

/** The list with the viewer's own record (if in it) put in afresh. */
function withOwnRecord(list: EncodedList, viewer: UserRow, ownJson: () => string): RawJson {
  const span = list.spans.get(viewer.id);
  if (!span) return new RawJson([list.text]);
  return new RawJson([list.text.subarray(0, span[0]), Buffer.from(ownJson()), list.text.subarray(span[1])]);
}

/** The realm's people for `viewer`, as JSON text identical to presenting each one. */
export function realmUsersJson(
  realm: RealmSnapshot,
  viewer: UserRow,
  clientGravatar: boolean,
  profiles: Profiles,
): RealmUsersJson {
  let variants = cache.get(realm);
  if (!variants) cache.set(realm, (variants = new Map<string, EncodedPeople>()));
  const variant = `${viewer.role}:${clientGravatar}`;
  let people = variants.get(variant);
  if (!people || people.profiles !== profiles) {
    people = encodePeople(realm, viewer, clientGravatar, profiles);
    variants.set(variant, people);
  }
  const own = () =>
    JSON.stringify(person(viewer, realm.usersById.get(viewer.id) ?? viewer, clientGravatar, profiles));
  return {
    active: withOwnRecord(people.active, viewer, own),
    inactive: withOwnRecord(people.inactive, viewer, own),
  };
}

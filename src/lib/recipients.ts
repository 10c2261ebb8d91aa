import { bool } from "../db/rows.js";
import type { RealmSnapshot } from "../world/realm.js";

/** Every active user of the realm (bots included): the audience of realm-wide events. */
export function activeUserIds(snapshot: RealmSnapshot): number[] {
  const ids: number[] = [];
  for (const user of snapshot.users) if (bool(user.is_active)) ids.push(user.id);
  return ids;
}

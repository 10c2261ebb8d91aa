import type { RealmEvent } from "../../wire/events.js";

/** Realm settings changed, as realm update_dict (property "default") carries them. */
export function realmUpdateDictEvent(data: Record<string, unknown>): RealmEvent {
  return { type: "realm", op: "update_dict", property: "default", data };
}

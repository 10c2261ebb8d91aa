import type { GroupSettingValue } from "../../permissions/group-settings.js";
import type { RealmEvent, RealmSettingValue } from "../../wire/events.js";

/** One realm setting changed, as realm `update` carries it. */
export function realmUpdateEvent(property: string, value: RealmSettingValue): RealmEvent {
  return { type: "realm", op: "update", property, value };
}

/** Realm settings changed, as realm update_dict (property "default") carries them. */
export function realmUpdateDictEvent(data: Record<string, unknown>): RealmEvent {
  return { type: "realm", op: "update_dict", property: "default", data };
}

/** The message-editing settings Zulip announces in the update_dict form, for their history. */
const UPDATE_DICT_PROPERTIES: ReadonlySet<string> = new Set([
  "allow_message_editing",
  "message_content_edit_limit_seconds",
]);

/**
 * Zulip's do_set_realm_property event for one changed setting: `update` for most, the
 * update_dict form for the message-editing settings, and topics_policy together with
 * the deprecated mandatory_topics it decides.
 */
export function realmPropertyEvent(property: string, value: RealmSettingValue): RealmEvent {
  if (property === "topics_policy") {
    return realmUpdateDictEvent({ topics_policy: value, mandatory_topics: value === "disable_empty_topic" });
  }
  if (UPDATE_DICT_PROPERTIES.has(property)) return realmUpdateDictEvent({ [property]: value });
  return realmUpdateEvent(property, value);
}

/** A group-permission setting changed (Zulip's do_change_realm_permission_group_setting). */
export function realmGroupSettingEvent(setting: string, value: GroupSettingValue): RealmEvent {
  return realmUpdateDictEvent({ [setting]: value });
}

import type { Knex } from "knex";
import { recipientUserIds, type ChatEvent, type EventRecipients } from "../wire/events.js";
import { profileDataByUser, type ProfileData } from "../lib/custom-profile-fields.js";
import { maxMessageIdForUser } from "../lib/user-messages.js";

/**
 * Per-user data that GET /users/me would otherwise query on every request: the newest
 * message ID and the custom profile values. It follows the committed event stream (every
 * change of state is an event), so it needs no hooks in the write paths; writes by other
 * processes clear it through the data_version watcher.
 */
export class UserStateCache {
  private readonly maxMessageIds = new Map<number, number>();
  private readonly profiles = new Map<number, ReadonlyMap<number, ProfileData>>();
  /** Bumped by every observed change, so a read that raced one is not stored. */
  private version = 0;

  async maxMessageId(knex: Knex, userId: number): Promise<number> {
    const cached = this.maxMessageIds.get(userId);
    if (cached !== undefined) return cached;
    const version = this.version;
    const max = await maxMessageIdForUser(knex, userId);
    if (version === this.version) this.maxMessageIds.set(userId, max);
    return max;
  }

  /** The user's newest message ID if known, without loading it (register's locked step). */
  knownMaxMessageId(userId: number): number | undefined {
    return this.maxMessageIds.get(userId);
  }

  async profileData(knex: Knex, realmId: number, userId: number): Promise<ProfileData> {
    return (await this.realmProfiles(knex, realmId)).get(userId) ?? {};
  }

  /**
   * Everyone's custom profile values in the realm, by user. Shared and kept (never change
   * it): the same map until a profile change, so /register's encoded realm_users can tell.
   */
  async realmProfiles(knex: Knex, realmId: number): Promise<ReadonlyMap<number, ProfileData>> {
    let realm = this.profiles.get(realmId);
    if (!realm) {
      const version = this.version;
      realm = await profileDataByUser(knex, realmId);
      if (version === this.version) this.profiles.set(realmId, realm);
    }
    return realm;
  }

  /** Called with every event as it is published, after its transaction committed. */
  observe(realmId: number, event: ChatEvent, recipients: EventRecipients): void {
    this.version++;
    switch (event.type) {
      case "message": {
        const id = event.message.id;
        for (const userId of recipientUserIds(recipients)) {
          const known = this.maxMessageIds.get(userId);
          if (known !== undefined && known < id) this.maxMessageIds.set(userId, id);
        }
        break;
      }
      case "delete_message":
      case "update_message":
        // Deletions and moves can lower a user's newest message: recompute on demand.
        this.maxMessageIds.clear();
        break;
      case "custom_profile_fields":
        this.profiles.delete(realmId);
        break;
      case "realm_user":
        if (event.op === "update" && "custom_profile_field" in event.person) this.profiles.delete(realmId);
        break;
      case "reaction":
        // Reacting to a message one never received adds it to one's messages (a historical
        // row), which can raise one's newest message ID: recompute on demand.
        if (event.op === "add") this.maxMessageIds.delete(event.user_id);
        break;
      case "update_message_flags":
        // As reacting: flagging (starring) a message one never received adds it.
        if (event.op === "add")
          for (const userId of recipientUserIds(recipients)) this.maxMessageIds.delete(userId);
        break;
      case "submessage":
      case "typing":
      case "typing_edit_message":
      case "stream":
      case "subscription":
      case "default_streams":
      case "channel_folder":
      case "realm":
      case "realm_bot":
      case "user_group":
      case "user_settings":
      case "realm_user_settings_defaults":
      case "user_status":
      case "navigation_view":
      case "saved_snippets":
      case "drafts":
      case "scheduled_messages":
      case "reminders":
      case "device":
      case "presence":
      case "user_topic":
      case "muted_topics":
      case "muted_users":
      case "alert_words":
      case "attachment":
      case "realm_emoji":
      case "realm_linkifiers":
      case "realm_playgrounds":
      case "invites_changed":
      case "realm_export":
      case "realm_export_consent":
        // Nothing cached here depends on these; a new event type must decide.
        break;
    }
  }

  clear(): void {
    this.version++;
    this.maxMessageIds.clear();
    this.profiles.clear();
  }
}

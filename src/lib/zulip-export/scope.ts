import type { Knex } from "knex";
import { bool } from "../../db/rows.js";

/**
 * Zulip's export types (zerver/models/realms.py RealmExport): what leaves with the archive.
 * - public (1): public channels' messages; nobody's private data.
 * - full with consent (2): also the private data and the messages of members who turned on
 *   `allow_private_data_export`.
 * - full (3, the command line's default, as Zulip's `manage.py export`): everything.
 */
export const EXPORT_TYPE = { public: 1, fullWithConsent: 2, full: 3 } as const;
export type ExportType = (typeof EXPORT_TYPE)[keyof typeof EXPORT_TYPE];

/** Recipient types (Zulip's Recipient.PERSONAL, STREAM, DIRECT_MESSAGE_GROUP). */
const PERSONAL = 1;
const STREAM = 2;
const DIRECT_MESSAGE_GROUP = 3;

/** Which rows an export includes, worked out once from the snapshot. */
export interface ExportScope {
  realmId: number;
  exportType: ExportType;
  /** Users whose private data is exported (all of them in a full export, none in a public one). */
  consenting: ReadonlySet<number>;
  /** Direct message groups exported (with their recipients and members). */
  directMessageGroupIds: ReadonlySet<number>;
  /** Personal recipient of each user who has one. */
  personalRecipients: ReadonlyMap<number, number>;
  /** The exported messages, as a condition on `messages as m`. */
  messages: (query: Knex.QueryBuilder) => Knex.QueryBuilder;
}

export async function exportScope(knex: Knex, realmId: number, exportType: ExportType): Promise<ExportScope> {
  const users = await knex("users").where({ realm_id: realmId }).select<
    Array<{
      id: number;
      allow_private_data_export: 0 | 1 | boolean;
    }>
  >("id", "allow_private_data_export");
  const consenting = new Set(
    exportType === EXPORT_TYPE.full
      ? users.map((u) => u.id)
      : exportType === EXPORT_TYPE.fullWithConsent
        ? users.filter((u) => bool(u.allow_private_data_export)).map((u) => u.id)
        : [],
  );
  const personal = await knex("recipients as r")
    .join("users as u", "u.id", "r.type_id")
    .where({ "r.type": PERSONAL, "u.realm_id": realmId })
    .select<Array<{ id: number; type_id: number }>>("r.id", "r.type_id");
  const personalRecipients = new Map(personal.map((r) => [r.type_id, r.id]));
  // Zulip's custom_fetch_direct_message_groups: a group is exported when one of its members consents.
  const groups = await knex("direct_message_groups")
    .where({ realm_id: realmId })
    .select<Array<{ id: number; user_ids_key: string }>>("id", "user_ids_key");
  const directMessageGroupIds = new Set(
    groups.filter((g) => g.user_ids_key.split(",").some((id) => consenting.has(Number(id)))).map((g) => g.id),
  );
  const groupRecipientIds =
    directMessageGroupIds.size === 0
      ? []
      : await recipientIdsOf(knex, DIRECT_MESSAGE_GROUP, [...directMessageGroupIds]);
  const publicChannels = () =>
    knex("streams")
      .where({ realm_id: realmId, invite_only: false })
      .whereNotNull("recipient_id")
      .select("recipient_id");

  let messages: ExportScope["messages"];
  if (exportType === EXPORT_TYPE.full) {
    messages = (q) => q.where("m.realm_id", realmId);
  } else if (exportType === EXPORT_TYPE.public) {
    messages = (q) => q.where("m.realm_id", realmId).whereIn("m.recipient_id", publicChannels());
  } else {
    // Zulip's export_partial_message_files for a consent export: public channels; channels
    // a consenting member is subscribed to, unless their history is protected (then only
    // the messages a consenting member received); DMs and group DMs of consenting members,
    // received or sent.
    const ids = [...consenting];
    const subscribedChannels = () =>
      knex("subscriptions as s")
        .join("streams as c", "c.id", "s.stream_id")
        .whereIn("s.user_id", ids)
        .where("c.realm_id", realmId);
    const openChannels = () =>
      subscribedChannels().where("c.history_public_to_subscribers", true).select("c.recipient_id");
    const protectedChannels = () =>
      subscribedChannels().where("c.history_public_to_subscribers", false).select("c.recipient_id");
    const ownPersonal = ids.flatMap((id) =>
      personalRecipients.has(id) ? [personalRecipients.get(id)!] : [],
    );
    messages = (q) =>
      q.where("m.realm_id", realmId).where((w) => {
        void w
          .whereIn("m.recipient_id", publicChannels())
          .orWhereIn("m.recipient_id", openChannels())
          .orWhere((p) => {
            void p
              .whereIn("m.recipient_id", protectedChannels())
              .whereExists(
                knex("user_messages as um")
                  .whereRaw("um.message_id = m.id")
                  .whereIn("um.user_id", ids)
                  .select(knex.raw("1")),
              );
          })
          .orWhereIn("m.recipient_id", ownPersonal)
          .orWhereIn("m.recipient_id", groupRecipientIds)
          .orWhere((p) => {
            void p
              .whereIn("m.sender_id", ids)
              .whereIn("m.recipient_id", knex("recipients").where({ type: PERSONAL }).select("id"));
          });
      });
  }
  return { realmId, exportType, consenting, directMessageGroupIds, personalRecipients, messages };
}

async function recipientIdsOf(knex: Knex, type: number, typeIds: number[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < typeIds.length; i += 500) {
    const rows = await knex("recipients")
      .where({ type })
      .whereIn("type_id", typeIds.slice(i, i + 500))
      .select<Array<{ id: number }>>("id");
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

export { PERSONAL, STREAM, DIRECT_MESSAGE_GROUP };

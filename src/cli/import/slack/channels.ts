import { createHash } from "node:crypto";
import { arrayIn, optBool, optObj, optStr, str, strList, timestamp } from "./slack-json.js";
import { RECIPIENT, type RealmTables, type Row } from "./realm-tables.js";
import type { SlackUsers } from "./users.js";

/**
 * channels.json, groups.json, mpims.json and dms.json -> streams, direct-message groups,
 * recipients and subscriptions, as Zulip's channels_to_zerver_stream: the purpose is the
 * description (the topic when there is no purpose), archived channels deactivated, private
 * channels invite-only with history hidden from new subscribers, #general and #random
 * default channels, #general the announcements channel.
 */
export interface Conversation {
  kind: "channel" | "mpim" | "dm";
  /** The folder of its day files: the channel's or mpim's name, the DM's id. */
  dir: string;
  /** The recipient of a channel or mpim; a DM's is per sender (the other member's). */
  recipientId: number;
  /** A DM's two members, Zulip ids. */
  members: number[];
}

export interface SlackConversations {
  /** Day-file folder -> conversation. */
  byDir: Map<string, Conversation>;
  /** Slack channel id -> channel name, for <#C…> links. */
  channelNames: Map<string, string>;
  announcementsStreamId: number | null;
}

const DEFAULT_CHANNELS = ["general", "random"];

/** Zulip's get_direct_message_group_hash. */
const groupHash = (ids: number[]) =>
  createHash("sha1")
    .update([...new Set(ids)].sort((a, b) => a - b).join(","))
    .digest("hex");

export function convertConversations(
  files: { channels: unknown; groups: unknown; mpims: unknown; dms: unknown },
  tables: RealmTables,
  users: SlackUsers,
  realmId: number,
): SlackConversations {
  const byDir = new Map<string, Conversation>();
  const channelNames = new Map<string, string>();
  let announcementsStreamId: number | null = null;
  let streamId = 1;
  const memberIds = (slackIds: string[]) => [...new Set(slackIds.map((id) => users.userFor(id)))];

  const channels = (json: unknown, file: string, inviteOnly: boolean) => {
    if (json === undefined) return;
    arrayIn(json, file).forEach((channel, i) => {
      const where = `${file}[${i}]`;
      const name = str(channel, "name", where);
      const purpose = optStr(optObj(channel, "purpose", where) ?? {}, "value", `${where}.purpose`) ?? "";
      const topic = optStr(optObj(channel, "topic", where) ?? {}, "value", `${where}.topic`) ?? "";
      const archived = optBool(channel, "is_archived", where);
      const id = streamId++;
      const stream: Row = {
        id,
        realm: realmId,
        name,
        description: (purpose || topic).replace(/\n/g, " "),
        date_created: timestamp(channel, "created", where),
        deactivated: archived,
        invite_only: inviteOnly,
        history_public_to_subscribers: !inviteOnly,
        is_web_public: false,
        stream_post_policy: 1,
      };
      tables.stream.push(stream);
      if (DEFAULT_CHANNELS.includes(name) && !archived) {
        tables.defaultstream.push({ id: tables.defaultstream.length + 1, realm: realmId, stream: id });
      }
      if (name === "general") announcementsStreamId = id;
      const recipientId = tables.addRecipient(RECIPIENT.STREAM, id);
      for (const userId of memberIds(strList(channel, "members", where)))
        tables.subscribe(recipientId, userId);
      byDir.set(name, { kind: "channel", dir: name, recipientId, members: [] });
      channelNames.set(str(channel, "id", where), name);
    });
  };
  channels(files.channels, "channels.json", false);
  channels(files.groups, "groups.json", true);

  if (files.mpims !== undefined) {
    arrayIn(files.mpims, "mpims.json").forEach((mpim, i) => {
      const where = `mpims.json[${i}]`;
      const members = memberIds(strList(mpim, "members", where));
      const id = tables.huddle.length + 1;
      tables.huddle.push({ id, huddle_hash: groupHash(members), group_size: members.length });
      const recipientId = tables.addRecipient(RECIPIENT.DIRECT_MESSAGE_GROUP, id);
      for (const userId of members) tables.subscribe(recipientId, userId);
      const name = str(mpim, "name", where);
      byDir.set(name, { kind: "mpim", dir: name, recipientId, members });
    });
  }

  if (files.dms !== undefined) {
    arrayIn(files.dms, "dms.json").forEach((dm, i) => {
      const where = `dms.json[${i}]`;
      const slackMembers = strList(dm, "members", where);
      const members = slackMembers.map((id) => users.userFor(id));
      const dir = str(dm, "id", where);
      byDir.set(dir, {
        kind: "dm",
        dir,
        recipientId: 0,
        members: members.length === 1 ? [members[0]!, members[0]!] : members,
      });
    });
  }
  return { byDir, channelNames, announcementsStreamId };
}

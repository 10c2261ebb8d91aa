/**
 * The rows of realm.json as the Slack conversion builds them, in Zulip's export format
 * (zerver/lib/export.py; the Slack importer's own shapes in zerver/data_import/import_util.py),
 * with ids from 1 (Zulip's converter starts at 0, which Zulip renumbers; chatd keeps ids).
 */
export type Row = Record<string, unknown>;

/** Zulip's Recipient.type. */
export const RECIPIENT = { PERSONAL: 1, STREAM: 2, DIRECT_MESSAGE_GROUP: 3 } as const;

/** Zulip's UserProfile.role. */
export const ROLE = { OWNER: 100, ADMINISTRATOR: 200, MEMBER: 400, GUEST: 600 } as const;

/** Zulip's stream colors, the first of which Zulip's importer picks from at random. */
const COLORS = ["#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5"];

/** Zulip's DATA_IMPORT_CLIENTS: messages are sent by "ZulipDataImport". */
export const IMPORT_CLIENT_ID = 5;
export const CLIENTS = [
  { id: 1, name: "Internal" },
  { id: 2, name: "website" },
  { id: 3, name: "ZulipMobile" },
  { id: 4, name: "ZulipElectron" },
  { id: 5, name: "ZulipDataImport" },
];

export class RealmTables {
  readonly userprofile: Row[] = [];
  readonly stream: Row[] = [];
  readonly huddle: Row[] = [];
  readonly recipient: Row[] = [];
  readonly subscription: Row[] = [];
  readonly defaultstream: Row[] = [];
  readonly reaction: Row[] = [];
  /** recipient id -> user ids who receive its messages (Zulip's subscriber_map). */
  readonly subscribers = new Map<number, Set<number>>();
  /** user id -> their personal recipient id. */
  readonly personalRecipient = new Map<number, number>();
  private nextRecipient = 1;
  private nextSubscription = 1;
  private nextReaction = 1;

  addRecipient(type: number, typeId: number): number {
    const id = this.nextRecipient++;
    this.recipient.push({ id, type, type_id: typeId });
    this.subscribers.set(id, new Set());
    return id;
  }

  subscribe(recipientId: number, userId: number): void {
    const members = this.subscribers.get(recipientId)!;
    if (members.has(userId)) return;
    members.add(userId);
    const id = this.nextSubscription++;
    this.subscription.push({
      id,
      user_profile: userId,
      recipient: recipientId,
      active: true,
      is_user_active: true,
      is_muted: false,
      pin_to_top: false,
      color: COLORS[id % COLORS.length],
      desktop_notifications: null,
      audible_notifications: null,
      push_notifications: null,
      email_notifications: null,
      wildcard_mentions_notify: null,
    });
  }

  addUser(row: Row): void {
    this.userprofile.push(row);
    const id = row.id as number;
    const recipientId = this.addRecipient(RECIPIENT.PERSONAL, id);
    this.personalRecipient.set(id, recipientId);
    this.subscribe(recipientId, id);
  }

  addReaction(messageId: number, userId: number, emoji: { emoji_name: string; emoji_code: string }): void {
    this.reaction.push({
      id: this.nextReaction++,
      message: messageId,
      user_profile: userId,
      emoji_name: emoji.emoji_name,
      emoji_code: emoji.emoji_code,
      reaction_type: "unicode_emoji",
    });
  }
}

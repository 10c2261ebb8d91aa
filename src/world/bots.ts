import { bool, type UserRow } from "../db/rows.js";

/** Zulip's bot types (UserProfile.bot_type). */
export const BOT_TYPE = {
  GENERIC: 1,
  INCOMING_WEBHOOK: 2,
  OUTGOING_WEBHOOK: 3,
  EMBEDDED: 4,
} as const;

export type BotType = (typeof BOT_TYPE)[keyof typeof BOT_TYPE];

/** Payload formats of an outgoing webhook (Zulip's Service.interface). */
export const SERVICE_INTERFACE = { GENERIC: 1, SLACK: 2 } as const;

export const ALLOWED_INTERFACE_TYPES: readonly number[] = [
  SERVICE_INTERFACE.GENERIC,
  SERVICE_INTERFACE.SLACK,
];

/**
 * An incoming-webhook bot's API key only sends messages (POST /messages and the
 * integrations' webhook URLs), as Zulip's is_incoming_webhook.
 */
export const isIncomingWebhookBot = (user: UserRow) =>
  bool(user.is_bot) && user.bot_type === BOT_TYPE.INCOMING_WEBHOOK;

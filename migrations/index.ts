import type { Knex } from "knex";
import * as initial from "./20261122000000_initial.js";
import * as messageSearch from "./20261122010000_message_search.js";
import * as systemBots from "./20261123000000_system_bots.js";
import * as eventOutbox from "./20261123005000_event_outbox.js";
import * as messageFetchIndexes from "./20261123010000_message_fetch_indexes.js";
import * as clientDevices from "./20261124000000_client_devices.js";
import * as submessages from "./20261124020000_submessages.js";
import * as presenceUpdateId from "./20261124030000_presence_update_id.js";
import * as userTopicIndex from "./20261124040000_user_topic_index.js";
import * as drafts from "./20261125000000_drafts.js";
import * as scheduledMessages from "./20261125000100_scheduled_messages.js";
import * as userSettings from "./20261125000200_user_settings.js";
import * as botConfigData from "./20261125000300_bot_config_data.js";
import * as attachments from "./20261125010000_attachments.js";
import * as outgoingWebhookDeliveries from "./20261126000000_outgoing_webhook_deliveries.js";
import * as realmPlaygrounds from "./20261126010000_realm_playgrounds.js";
import * as eventLog from "./20261127000000_event_log.js";
import * as workClaims from "./20261128000000_work_claims.js";
import * as presenceSequence from "./20261129000000_presence_sequence.js";
import * as sessions from "./20261130000000_sessions.js";
import * as emailAndConfirmations from "./20261201000000_email_and_confirmations.js";
import * as invitations from "./20261201010000_invitations.js";
import * as missedMessageNotifications from "./20261201020000_missed_message_notifications.js";
import * as welcomeMessageCustomText from "./20261202100000_welcome_message_custom_text.js";
import * as realmExports from "./20261203000000_realm_exports.js";

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every migration, in the order it runs. Append only; never edit a released one. */
export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ["20261122000000_initial", initial],
  ["20261122010000_message_search", messageSearch],
  ["20261123000000_system_bots", systemBots],
  ["20261123005000_event_outbox", eventOutbox],
  ["20261123010000_message_fetch_indexes", messageFetchIndexes],
  ["20261124000000_client_devices", clientDevices],
  ["20261124020000_submessages", submessages],
  ["20261124030000_presence_update_id", presenceUpdateId],
  ["20261124040000_user_topic_index", userTopicIndex],
  ["20261125000000_drafts", drafts],
  ["20261125000100_scheduled_messages", scheduledMessages],
  ["20261125000200_user_settings", userSettings],
  ["20261125000300_bot_config_data", botConfigData],
  ["20261125010000_attachments", attachments],
  ["20261126000000_outgoing_webhook_deliveries", outgoingWebhookDeliveries],
  ["20261126010000_realm_playgrounds", realmPlaygrounds],
  ["20261127000000_event_log", eventLog],
  ["20261128000000_work_claims", workClaims],
  ["20261129000000_presence_sequence", presenceSequence],
  ["20261130000000_sessions", sessions],
  ["20261201000000_email_and_confirmations", emailAndConfirmations],
  ["20261201010000_invitations", invitations],
  ["20261201020000_missed_message_notifications", missedMessageNotifications],
  ["20261202100000_welcome_message_custom_text", welcomeMessageCustomText],
  ["20261203000000_realm_exports", realmExports],
];

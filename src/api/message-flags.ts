import {
  validateFlagChange,
  checkMarkAsRead,
  checkUpdateMessageFlags,
  checkUpdateMessageFlagsForNarrow,
} from "../actions/message-flags.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, p } from "../params.js";
import { narrowParam } from "../lib/narrow/index.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";

/** Message flags: by ID, for a narrow's anchor window, and the bulk "mark as read"s. */

export const updateMessageFlags = defineEndpoint({
  method: "POST",
  path: "/messages/flags",
  auth: "user",
  params: { messages: p.listOf(validate.int()), op: p.str(), flag: p.str() },
  async handler({ app, user, realm, params }) {
    const change = validateFlagChange(params.flag, params.op);
    const result = await checkUpdateMessageFlags(app, realm, user, change, params.messages);
    return {
      messages: params.messages,
      ...(change.op === "remove" && change.flag === "read"
        ? { ignored_because_not_subscribed_channels: result.ignoredChannels }
        : {}),
    };
  },
});

export const updateMessageFlagsForNarrow = defineEndpoint({
  method: "POST",
  path: "/messages/flags/narrow",
  auth: "user",
  params: {
    anchor: p.str(),
    include_anchor: p.bool().default(true),
    num_before: p.int({ min: 0 }),
    num_after: p.int({ min: 0 }),
    narrow: narrowParam(),
    op: p.str(),
    flag: p.str(),
  },
  async handler({ app, user, realm, params }) {
    const change = validateFlagChange(params.flag, params.op);
    const result = await checkUpdateMessageFlagsForNarrow(app, realm, user, change, params.narrow, {
      anchor: params.anchor,
      includeAnchor: params.include_anchor,
      numBefore: params.num_before,
      numAfter: params.num_after,
    });
    const ids = result.processed;
    return {
      processed_count: ids.length,
      updated_count: result.changed.length,
      first_processed_id: ids[0] ?? null,
      last_processed_id: ids.at(-1) ?? null,
      found_oldest: result.foundOldest,
      found_newest: result.foundNewest,
      ...(change.op === "remove" && change.flag === "read"
        ? { ignored_because_not_subscribed_channels: result.ignoredChannels }
        : {}),
    };
  },
});

export const markAllAsRead = defineEndpoint({
  method: "POST",
  path: "/mark_all_as_read",
  auth: "user",
  params: {},
  async handler({ app, user, realm }) {
    await checkMarkAsRead(app, realm, user);
    return { complete: true };
  },
});

export const markStreamAsRead = defineEndpoint({
  method: "POST",
  path: "/mark_stream_as_read",
  auth: "user",
  params: { stream_id: p.int() },
  async handler({ app, user, realm, params }) {
    await checkMarkAsRead(app, realm, user, params.stream_id);
    return {};
  },
});

/** Deprecated in Zulip (flags/narrow replaces it) but still served. */
export const markTopicAsRead = defineEndpoint({
  method: "POST",
  path: "/mark_topic_as_read",
  auth: "user",
  params: { stream_id: p.int(), topic_name: p.str() },
  async handler({ app, user, realm, params }) {
    // The empty topic's display name stands for the empty topic.
    const topic = params.topic_name === emptyTopicDisplayName(realm.realm) ? "" : params.topic_name;
    await checkMarkAsRead(app, realm, user, params.stream_id, topic);
    return {};
  },
});

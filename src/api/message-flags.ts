import {
  checkFlagChange,
  checkReadScope,
  doMarkAsRead,
  doUpdateMessageFlags,
} from "../actions/message-flags.js";
import { defineEndpoint } from "../http/endpoint.js";
import { check, p } from "../params.js";
import {
  checkRange,
  fetchRange,
  narrowParam,
  parseAnchor,
  resolveAnchor,
  resolveNarrow,
} from "../lib/narrow/index.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";

/** Message flags: by ID, for a narrow's anchor window, and the bulk "mark as read"s. */

/** Zulip's MAX_MESSAGES_PER_UPDATE for flags/narrow. */
const MAX_MESSAGES_PER_UPDATE = 5000;

export const updateMessageFlags = defineEndpoint({
  method: "POST",
  path: "/messages/flags",
  auth: "user",
  params: { messages: p.listOf(check.int()), op: p.str(), flag: p.str() },
  async handler({ app, user, realm, params }) {
    const change = checkFlagChange(params.flag, params.op);
    const result = await app.db.transaction(async (tx) => {
      const world = { realm, channels: await app.channels.get(tx.knex, realm.id) };
      return doUpdateMessageFlags(tx, world, user, change, params.messages);
    });
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
    const change = checkFlagChange(params.flag, params.op);
    const requested = parseAnchor(params.anchor);
    // The server may lower the window (Zulip's clamp), never raise it.
    const numBefore = Math.min(
      params.num_before,
      Math.max(MAX_MESSAGES_PER_UPDATE - params.num_after, MAX_MESSAGES_PER_UPDATE / 2),
    );
    const numAfter = Math.min(params.num_after, MAX_MESSAGES_PER_UPDATE - numBefore);
    checkRange(numBefore, numAfter, params.include_anchor);
    return app.db.transaction(async (tx) => {
      const world = { realm, channels: await app.channels.get(tx.knex, realm.id) };
      const scope = { knex: tx.knex, world, user };
      const narrow = await resolveNarrow(scope, params.narrow);
      const anchor = await resolveAnchor(scope, narrow, requested);
      const range = await fetchRange(
        scope,
        narrow,
        { anchor, numBefore, numAfter, includeAnchor: params.include_anchor },
        { userMessagesOnly: true },
      );
      const ids = range.rows.map((row) => row.id);
      const result = await doUpdateMessageFlags(tx, world, user, change, ids);
      return {
        processed_count: ids.length,
        updated_count: result.changed.length,
        first_processed_id: ids[0] ?? null,
        last_processed_id: ids.at(-1) ?? null,
        found_oldest: range.foundOldest,
        found_newest: range.foundNewest,
        ignored_because_not_subscribed_channels: result.ignoredChannels,
      };
    });
  },
});

export const markAllAsRead = defineEndpoint({
  method: "POST",
  path: "/mark_all_as_read",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    await app.db.transaction((tx) => doMarkAsRead(tx, user, { kind: "all" }));
    return { complete: true };
  },
});

export const markStreamAsRead = defineEndpoint({
  method: "POST",
  path: "/mark_stream_as_read",
  auth: "user",
  params: { stream_id: p.int() },
  async handler({ app, user, realm, params }) {
    await app.db.transaction(async (tx) => {
      const world = { realm, channels: await app.channels.get(tx.knex, realm.id) };
      await doMarkAsRead(tx, user, await checkReadScope(tx, world, user, params.stream_id));
    });
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
    await app.db.transaction(async (tx) => {
      const world = { realm, channels: await app.channels.get(tx.knex, realm.id) };
      const scope = await checkReadScope(tx, world, user, params.stream_id, topic);
      await doMarkAsRead(tx, user, scope);
    });
    return {};
  },
});

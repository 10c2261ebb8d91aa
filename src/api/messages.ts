import { badRequest, missingArgument } from "../errors.js";
import { defineEndpoint, type AuthedContext } from "../http/endpoint.js";
import { validate, p, pathInt } from "../params.js";
import { realmUrl } from "../config.js";
import { fetchMessageDicts, loadMessageRows, matchFields } from "../queries/message-fetch.js";
import { accessMessage, invalidMessage } from "../lib/message-access.js";
import { MAX_MESSAGE_LENGTH } from "../lib/message-content.js";
import { renderForSend } from "../lib/message-render.js";
import {
  validateRange,
  fetchIds,
  fetchRange,
  MAX_MESSAGES_PER_FETCH,
  narrowParam,
  narrowQuery,
  parseAnchor,
  resolveAnchor,
  resolveNarrow,
  type NarrowScope,
} from "../lib/narrow/index.js";
import { loadWorld } from "../cache/world.js";

/**
 * Reading messages: GET /messages, GET /messages/{id}, GET /messages/matches_narrow, and
 * POST /messages/render.
 */

async function scopeOf(ctx: AuthedContext<unknown>): Promise<NarrowScope> {
  const { app, realm, user } = ctx;
  return { knex: app.knex, world: await loadWorld(app, app.knex, realm), user, config: app.config };
}

/** What message_ids excludes (Zulip's IncompatibleParametersError, in its order). */
const RANGE_PARAMETERS = [
  "num_before",
  "num_after",
  "anchor",
  "message_ids",
  "include_anchor",
  "use_first_unread_anchor",
].join(", ");

export const getMessages = defineEndpoint({
  method: "GET",
  path: "/messages",
  auth: "user",
  params: {
    anchor: p.str().optional(),
    include_anchor: p.bool().default(true),
    num_before: p.int({ min: 0 }).optional(),
    num_after: p.int({ min: 0 }).optional(),
    narrow: narrowParam().default([]),
    client_gravatar: p.bool().default(true),
    apply_markdown: p.bool().default(true),
    use_first_unread_anchor: p.bool().default(false),
    allow_empty_topic_name: p.bool().default(false),
    message_ids: p.listOf(validate.int({ min: 0 })).optional(),
  },
  async handler(ctx) {
    const { params } = ctx;
    const shape = {
      applyMarkdown: params.apply_markdown,
      clientGravatar: params.client_gravatar,
      allowEmptyTopicName: params.allow_empty_topic_name,
    };
    if (params.message_ids !== undefined) {
      // A list of IDs instead of a range (feature level 300); a zero count is no range.
      const range =
        params.anchor !== undefined ||
        params.use_first_unread_anchor ||
        Boolean(params.num_before) ||
        Boolean(params.num_after);
      if (range) {
        throw badRequest(`Unsupported parameter combination: ${RANGE_PARAMETERS}`, {
          parameters: RANGE_PARAMETERS,
        });
      }
      if (params.message_ids.length > MAX_MESSAGES_PER_FETCH) {
        throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
      }
      const scope = await scopeOf(ctx);
      const narrow = await resolveNarrow(scope, params.narrow);
      const rows = await fetchIds(scope, narrow, params.message_ids);
      return {
        messages: await fetchMessageDicts(scope.knex, scope.world, rows, { ...shape, search: narrow.search }),
        history_limited: false,
        found_anchor: false,
        found_oldest: false,
        found_newest: false,
      };
    }
    // The legacy use_first_unread_anchor wins over anchor, as in Zulip (zulip-terminal
    // sends anchor=0 with it).
    const requested = params.use_first_unread_anchor
      ? "first_unread"
      : params.anchor !== undefined
        ? parseAnchor(params.anchor)
        : undefined;
    if (requested === undefined) throw badRequest("Missing 'anchor' argument.");
    if (params.num_before === undefined) throw missingArgument("num_before");
    if (params.num_after === undefined) throw missingArgument("num_after");
    validateRange(params.num_before, params.num_after, params.include_anchor);
    const scope = await scopeOf(ctx);
    const narrow = await resolveNarrow(scope, params.narrow);
    const anchor = await resolveAnchor(scope, narrow, requested);
    const range = await fetchRange(scope, narrow, {
      anchor,
      numBefore: params.num_before,
      numAfter: params.num_after,
      includeAnchor: params.include_anchor,
    });
    const messages = await fetchMessageDicts(scope.knex, scope.world, range.rows, {
      ...shape,
      search: narrow.search,
    });
    return {
      messages,
      anchor,
      found_anchor: range.foundAnchor,
      found_oldest: range.foundOldest,
      found_newest: range.foundNewest,
      history_limited: range.historyLimited,
    };
  },
});

/** GET /messages/matches_narrow: which of the given messages match the narrow. */
export const getMessagesMatchesNarrow = defineEndpoint({
  method: "GET",
  path: "/messages/matches_narrow",
  auth: "user",
  params: {
    msg_ids: p.listOf(validate.int()),
    narrow: narrowParam(),
  },
  async handler(ctx) {
    const scope = await scopeOf(ctx);
    const narrow = await resolveNarrow(scope, ctx.params.narrow);
    const ids = [...new Set(ctx.params.msg_ids)];
    const matching: number[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = (await narrowQuery(scope, narrow, { userMessagesOnly: true }).whereIn(
        "um.message_id",
        ids.slice(i, i + 500),
      )) as Array<{ id: number }>;
      matching.push(...rows.map((r) => Number(r.id)));
    }
    const rows = await loadMessageRows(scope.knex, matching);
    const messages: Record<string, unknown> = {};
    for (const id of matching.sort((a, b) => a - b)) {
      const row = rows.get(id);
      if (row) messages[String(id)] = matchFields(row, narrow.search);
    }
    return { messages };
  },
});

/** GET /messages/{message_id}: one message the user may read, with its Markdown source. */
export const getMessage = defineEndpoint({
  method: "GET",
  path: "/messages/:message_id",
  auth: "user",
  params: {
    message_id: pathInt(),
    apply_markdown: p.bool().default(true),
    allow_empty_topic_name: p.bool().default(false),
  },
  async handler(ctx) {
    const scope = await scopeOf(ctx);
    const head = await accessMessage(scope, ctx.params.message_id);
    const [message] = await fetchMessageDicts(scope.knex, scope.world, [{ id: head.id, flags: head.flags }], {
      applyMarkdown: ctx.params.apply_markdown,
      clientGravatar: false,
      allowEmptyTopicName: ctx.params.allow_empty_topic_name,
    });
    if (!message) throw invalidMessage();
    const rows = await loadMessageRows(scope.knex, [head.id]);
    return { raw_content: rows.get(head.id)?.content ?? "", message };
  },
});

/**
 * POST /messages/render: Markdown to HTML as a message of the user would be rendered
 * (mentions and links resolve to what the user may see), without sending anything.
 */
export const renderMessage = defineEndpoint({
  method: "POST",
  path: "/messages/render",
  auth: "user",
  params: { content: p.str({ maxLength: MAX_MESSAGE_LENGTH }) },
  async handler({ app, realm, user, params }) {
    const rendered = await renderForSend(
      {
        knex: app.knex,
        realm,
        channels: await app.channels.get(app.knex, realm.id),
        sender: user,
        realmUrl: realmUrl(app.config),
        now: () => new Date(app.clock.nowMs()),
      },
      params.content,
    );
    return { rendered: rendered.html };
  },
});

import { badRequest } from "../errors.js";
import { validateEventNarrow, eventNarrowFor } from "../lib/narrow/event-filter.js";
import { fetchInitialState } from "../queries/register.js";
import { captureRegisterSources } from "../queries/register-capture.js";
import { isGuestRole } from "../world/roles.js";
import { CLIENT_CAPABILITIES, type QueueOptions } from "../wire/events.js";
import type { QueuedEvent } from "../events/queue.js";
import { registerQueue } from "../events/register.js";
import { encodeEvents } from "../events/wire-json.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, p, type Validator } from "../params.js";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../presenters/realm.js";

/**
 * Narrow terms for /register: [operator, operand] pairs or {operator, operand} objects.
 * An event queue's narrow cannot be negated (Zulip's takes pairs only).
 */
const registerNarrowTerm: Validator<readonly [string, string]> = (value, name) => {
  if (Array.isArray(value)) {
    const [operator, operand] = validate.list(validate.str(), { minLength: 2, maxLength: 2 })(value, name);
    return [operator!, operand!] as const;
  }
  const term = validate.dict({
    operator: { required: true, validate: validate.str() },
    operand: { required: true, validate: validate.anyOf<string | number>(validate.str(), validate.int()) },
    negated: { required: false, validate: validate.bool() },
  })(value, name);
  if (term.negated === true) throw badRequest(`${name}: negated terms are not supported for event queues`);
  return [term.operator, String(term.operand)] as const;
};

const includeSubscribersParam = p.custom((raw, name): boolean | "partial" => {
  const value = raw.trim();
  if (value === "partial" || value === '"partial"') return "partial";
  if (value === "true") return true;
  if (value === "false") return false;
  throw badRequest(`Invalid ${name}`);
});

const MAX_IDLE_QUEUE_TIMEOUT_SECS = 7 * 24 * 3600;
const MOBILE_IDLE_QUEUE_TIMEOUT_SECS = 12 * 3600;

/**
 * idle_queue_timeout (feature level 481): seconds, or "mobile" (12 hours); 0 means the
 * server default and larger values are capped at a week, as Zulip does.
 */
const idleQueueTimeoutParam = p.custom((raw, name): number | null => {
  const value = raw.trim();
  if (value === "mobile" || value === '"mobile"') return MOBILE_IDLE_QUEUE_TIMEOUT_SECS;
  if (!/^-?\d+$/.test(value)) throw badRequest(`Invalid ${name}`);
  const secs = Number(value);
  if (secs < 0) throw badRequest(`${name} is too small`);
  return secs === 0 ? null : Math.min(secs, MAX_IDLE_QUEUE_TIMEOUT_SECS);
});

export const register = defineEndpoint({
  method: "POST",
  path: "/register",
  auth: "user",
  params: {
    apply_markdown: p.bool().default(false),
    client_gravatar: p.bool().default(true),
    include_subscribers: includeSubscribersParam.default(false),
    slim_presence: p.bool().default(false),
    presence_history_limit_days: p.int({ min: 0 }).optional(),
    idle_queue_timeout: idleQueueTimeoutParam.optional(),
    event_types: p.listOf(validate.str()).optional(),
    fetch_event_types: p.listOf(validate.str()).optional(),
    all_public_streams: p.bool().default(false),
    client_capabilities: p.json(validate.record(validate.bool())).optional(),
    narrow: p.listOf(registerNarrowTerm).default([]),
    // Deprecated Zulip name of idle_queue_timeout, still sent by old clients.
    queue_lifespan_secs: p.int({ min: 0 }).optional(),
  },
  async handler({ app, user, realm, sessionId, params, request }) {
    // Guests may not read every public channel (Zulip's can_access_public_streams).
    if (params.all_public_streams && isGuestRole(user.role)) {
      throw badRequest("User not authorized for this query");
    }
    validateEventNarrow(params.narrow);
    const capabilities: Record<string, boolean> = {};
    for (const name of CLIENT_CAPABILITIES) {
      if (params.client_capabilities?.[name] === true) capabilities[name] = true;
    }
    const requested = params.idle_queue_timeout ?? params.queue_lifespan_secs ?? null;
    const idleTimeoutSecs = requested
      ? Math.min(requested, MAX_IDLE_QUEUE_TIMEOUT_SECS)
      : app.config.idle_queue_timeout_secs;
    const options: QueueOptions = {
      eventTypes: params.event_types ?? null,
      applyMarkdown: params.apply_markdown,
      clientGravatar: params.client_gravatar,
      slimPresence: params.slim_presence,
      allPublicStreams: params.all_public_streams,
      narrow: eventNarrowFor(app.config, realm, user, params.narrow),
      capabilities,
      idleTimeoutSecs,
      clientName: request.clientName,
      ...(sessionId === null ? {} : { sessionId }),
    };
    const context = {
      options,
      includeSubscribers: params.include_subscribers,
      presenceHistoryLimitDays: params.presence_history_limit_days,
      fetchTypes: params.fetch_event_types ?? params.event_types ?? null,
    };
    // The queue and the state it starts from, consistent with each other (events/register.ts).
    const { queue, lastEventId, state } = await registerQueue(
      app.db,
      app.events,
      { userId: user.id, realmId: user.realm_id, options },
      () => captureRegisterSources(app, user, context),
      (knex, captured) => fetchInitialState({ ...context, ...captured, app, knex }, captured.precomputed),
    );
    return {
      queue_id: queue.id,
      last_event_id: lastEventId,
      idle_queue_timeout_secs: idleTimeoutSecs,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      ...state,
    };
  },
});

export const getEvents = defineEndpoint({
  method: "GET",
  path: "/events",
  auth: "user",
  params: {
    queue_id: p.str(),
    last_event_id: p.int({ min: -1 }).optional(),
    dont_block: p.bool().default(false),
  },
  async handler({ app, user, params, request }) {
    const queue = await app.events.openQueue(params.queue_id, user.id);
    const polled = app.events.poll(queue, params.last_event_id, params.dont_block);
    const answer = (events: QueuedEvent[]) => ({ events: encodeEvents(events), queue_id: queue.id });
    if (params.dont_block) return polled.then(answer);
    // A client that leaves ends its wait (the poll is answered, to nobody). Chained rather
    // than awaited: a parked poll then holds no suspended frame of this handler.
    const stop = request.whenGone(() => queue.finishWait([]));
    return polled.then(
      (events) => {
        stop();
        return answer(events);
      },
      (err: unknown) => {
        stop();
        throw err;
      },
    );
  },
});

export const deleteQueue = defineEndpoint({
  method: "DELETE",
  path: "/events",
  auth: "user",
  params: { queue_id: p.str() },
  async handler({ app, user, params }) {
    await app.events.removeQueue(await app.events.openQueue(params.queue_id, user.id));
    return {};
  },
});

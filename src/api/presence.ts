import { updateUserPresence } from "../actions/presence.js";
import { bool } from "../db/rows.js";
import { badRequest, noSuchUser } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { accessUserByIdOrEmail } from "../lib/access-users.js";
import { p } from "../params.js";
import { realmPresences, userPresence } from "../queries/presence.js";

/**
 * POST /users/me/presence: reports the user's presence and, unless ping_only, returns
 * everyone's. last_update_id asks for the changes since then, in the modern format.
 */
export const updatePresence = defineEndpoint({
  method: "POST",
  path: "/users/me/presence",
  auth: "user",
  params: {
    status: p.str(),
    ping_only: p.bool().default(false),
    // Zulip feeds this to its usage statistics, which chatd does not keep.
    new_user_input: p.bool().default(false),
    slim_presence: p.bool().default(false),
    last_update_id: p.int().optional(),
    history_limit_days: p.int().optional(),
  },
  async handler({ app, user, realm, params }) {
    await updateUserPresence(app, realm, user, params.status);
    if (params.ping_only) return {};
    const { presences, lastUpdateId } = await realmPresences(app, realm, {
      slim: params.slim_presence || params.last_update_id !== undefined,
      lastUpdateId: params.last_update_id,
      historyLimitDays: params.history_limit_days,
    });
    return {
      presences,
      server_timestamp: app.clock.nowMs() / 1000,
      presence_last_update_id: lastUpdateId,
    };
  },
});

/** GET /realm/presence: everyone's presence, in the legacy format only (as in Zulip). */
export const getRealmPresence = defineEndpoint({
  method: "GET",
  path: "/realm/presence",
  auth: "user",
  params: {},
  async handler({ app, realm }) {
    const { presences } = await realmPresences(app, realm, { slim: false });
    return { presences, server_timestamp: app.clock.nowMs() / 1000 };
  },
});

/**
 * GET /users/{user_id_or_email}/presence. Departure from Zulip, which answers even when
 * the organization disabled presence: chatd then has no presence data for anyone.
 */
export const getUserPresence = defineEndpoint({
  method: "GET",
  path: "/users/:user_id_or_email/presence",
  auth: "user",
  params: {
    user_id_or_email: p.path(p.str()),
    slim_presence: p.bool().default(false),
  },
  async handler({ app, user, realm, params }) {
    const key = params.user_id_or_email;
    const target = accessUserByIdOrEmail(app.config, realm, user, key);
    if (!bool(target.is_active)) throw noSuchUser();
    if (target.bot_type !== null) throw badRequest("Presence is not supported for bot users.");
    const presence = bool(realm.realm.presence_disabled)
      ? null
      : await userPresence(app, realm, target, params.slim_presence);
    if (!presence) throw badRequest(`No presence data for ${key}`);
    return { presence };
  },
});

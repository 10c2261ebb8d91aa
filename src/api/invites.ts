import {
  INVITATION_LINK_VALIDITY_MINUTES,
  checkCreateMultiuseInvite,
  checkInviteUsers,
  checkResendInvite,
  checkRevokeInvite,
  listInvites,
  type InvitationTerms,
} from "../actions/invites.js";
import { inviteLinksAnswer } from "./invite-links.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt, validate } from "../params.js";
import { ROLE } from "../world/roles.js";
import { roleParam } from "./users.js";

/** A century, in minutes: beyond it an expiry is no different from never (null). */
const MAX_EXPIRY_MINUTES = 100 * 365 * 24 * 60;

/** The terms both kinds of invitation take (Zulip's invite_users_backend and its multiuse twin). */
const termsParams = {
  invite_expires_in_minutes: p
    .json(validate.nullable(validate.int({ min: 1, max: MAX_EXPIRY_MINUTES })))
    .default(INVITATION_LINK_VALIDITY_MINUTES),
  invite_as: roleParam.default(ROLE.MEMBER),
  include_realm_default_subscriptions: p.bool().default(false),
  group_ids: p.listOf(validate.int()).default([]),
};

const terms = (
  params: {
    invite_expires_in_minutes: number | null;
    invite_as: InvitationTerms["inviteAs"];
    include_realm_default_subscriptions: boolean;
    group_ids: number[];
  },
  streamIds: readonly number[],
  notifyReferrerOnJoin: boolean,
): InvitationTerms => ({
  inviteAs: params.invite_as,
  expiresInMinutes: params.invite_expires_in_minutes,
  streamIds,
  groupIds: params.group_ids,
  includeRealmDefaultSubscriptions: params.include_realm_default_subscriptions,
  notifyReferrerOnJoin,
});

export const getInvites = defineEndpoint({
  method: "GET",
  path: "/invites",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { invites: await listInvites(app, user) };
  },
});

export const sendInvites = defineEndpoint({
  method: "POST",
  path: "/invites",
  auth: "user",
  params: {
    invitee_emails: p.str(),
    stream_ids: p.listOf(validate.int()),
    notify_referrer_on_join: p.bool().default(true),
    ...termsParams,
  },
  async handler({ app, user, params }) {
    const sent = await checkInviteUsers(
      app,
      user,
      params.invitee_emails,
      terms(params, params.stream_ids, params.notify_referrer_on_join),
    );
    return inviteLinksAnswer(app, sent);
  },
});

export const createInviteLink = defineEndpoint({
  method: "POST",
  path: "/invites/multiuse",
  auth: "user",
  params: { stream_ids: p.listOf(validate.int()).default([]), ...termsParams },
  async handler({ app, user, params }) {
    const { link } = await checkCreateMultiuseInvite(app, user, terms(params, params.stream_ids, true));
    return { invite_link: link };
  },
});

export const revokeEmailInvite = defineEndpoint({
  method: "DELETE",
  path: "/invites/:invite_id",
  auth: "user",
  params: { invite_id: pathInt() },
  async handler({ app, user, params }) {
    await checkRevokeInvite(app, user, params.invite_id, false);
    return {};
  },
});

export const revokeInviteLink = defineEndpoint({
  method: "DELETE",
  path: "/invites/multiuse/:invite_id",
  auth: "user",
  params: { invite_id: pathInt() },
  async handler({ app, user, params }) {
    await checkRevokeInvite(app, user, params.invite_id, true);
    return {};
  },
});

export const resendEmailInvite = defineEndpoint({
  method: "POST",
  path: "/invites/:invite_id/resend",
  auth: "user",
  params: { invite_id: pathInt() },
  async handler({ app, user, params }) {
    return inviteLinksAnswer(app, [await checkResendInvite(app, user, params.invite_id)]);
  },
});

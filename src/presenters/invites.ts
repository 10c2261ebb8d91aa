import { bool, type DbBool } from "../db/rows.js";

/** A row of `invitations` (migrations/20261201010000_invitations.ts). */
export interface InvitationRow {
  id: number;
  realm_id: number;
  referred_by: number;
  is_multiuse: DbBool;
  email: string | null;
  invited_as: number;
  stream_ids: string;
  /** JSON list of user group IDs the new user joins. */
  group_ids: string;
  include_realm_default_subscriptions: DbBool;
  notify_referrer_on_join: DbBool;
  link_token: string | null;
  created_at: number;
  revoked_at: number | null;
}

/** Zulip's Invite object, as GET /invites lists it. */
export interface WireInvite {
  id: number;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  invited_as: number;
  is_multiuse: boolean;
  notify_referrer_on_join: boolean;
  email?: string;
  link_url?: string;
}

/** An invitation with its expiry; a reusable link shows its URL, an email invitation its address. */
export function presentInvite(
  row: InvitationRow & { expires_at: number | string | null },
  linkUrl: string | null,
): WireInvite {
  return {
    id: row.id,
    invited_by_user_id: row.referred_by,
    invited: Number(row.created_at),
    expiry_date: row.expires_at === null ? null : Number(row.expires_at),
    invited_as: row.invited_as,
    is_multiuse: bool(row.is_multiuse),
    notify_referrer_on_join: bool(row.notify_referrer_on_join),
    ...(bool(row.is_multiuse) ? { link_url: linkUrl ?? "" } : { email: row.email ?? "" }),
  };
}

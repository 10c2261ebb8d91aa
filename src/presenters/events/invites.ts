import type { InvitesChangedEvent } from "../../wire/events.js";

/** invites_changed: no details; clients that list invitations fetch GET /invites again. */
export const invitesChangedEvent = (): InvitesChangedEvent => ({ type: "invites_changed" });

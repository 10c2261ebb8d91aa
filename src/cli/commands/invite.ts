import { Command } from "commander";
import type { App } from "../../app.js";
import type { InvitationTerms } from "../../actions/invites.js";
import { emailEnabled } from "../../lib/email-settings.js";
import type { RealmSnapshot } from "../../world/realm.js";
import { ROLE, ROLE_BY_NAME, roleName, type Role } from "../../world/roles.js";
import { configFor, withApp } from "../context.js";
import { CliError, formatTable, note, printJson, printLine } from "../output.js";
import { requireOperatorOwner, requireRealm } from "../realm.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const inviteActions = () => import("../../actions/invites.js");

/**
 * `chatd invite ...`: invitations through the API's actions and rules (POST /invites,
 * POST /invites/multiuse, GET /invites, DELETE /invites/...), acting as the organization's
 * first active owner. The links are printed: with email off they are the only way in.
 */

interface TermsOptions {
  as?: string;
  channel?: string[];
  expiresInDays?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function roleOption(name: string | undefined): Role {
  if (name === undefined) return ROLE.MEMBER;
  const role = ROLE_BY_NAME[name.trim().toLowerCase()];
  if (role === undefined) throw new CliError(`--as must be one of ${Object.keys(ROLE_BY_NAME).join(", ")}`);
  return role;
}

/** Days (a positive number) or `never`; default ten days, as Zulip. */
function expiryMinutes(value: string | undefined): number | null {
  if (value === undefined) return 10 * 24 * 60;
  if (value.trim().toLowerCase() === "never") return null;
  const days = Number(value);
  if (!Number.isFinite(days) || days <= 0 || days > 36500) {
    throw new CliError("--expires-in-days must be a positive number of days, or never");
  }
  return Math.round(days * 24 * 60);
}

async function termsFrom(app: App, realm: RealmSnapshot, opts: TermsOptions): Promise<InvitationTerms> {
  const channels = await app.channels.get(app.knex, realm.id);
  const streamIds = (opts.channel ?? []).map((name) => {
    const channel = channels.channelByName(name.replace(/^#/, "").trim());
    if (!channel) throw new CliError(`no channel named ${name}`);
    return channel.id;
  });
  return {
    inviteAs: roleOption(opts.as),
    expiresInMinutes: expiryMinutes(opts.expiresInDays),
    streamIds,
    groupIds: [],
    // New people join the default channels, as those `chatd user create` makes do.
    includeRealmDefaultSubscriptions: true,
    notifyReferrerOnJoin: false,
  };
}

const expiresAt = (secs: number | null) => (secs === null ? null : new Date(secs * 1000).toISOString());

function emailOffNote(app: App): void {
  if (emailEnabled(app.config)) return;
  note(
    "Email is off (no smtp_host is set): nothing was sent. Hand each person their link; " +
      "emails are written under the data directory's outbox/.",
  );
}

const withTerms = (cmd: Command) =>
  cmd
    .option("--as <role>", "the new users' role: owner, admin, moderator, member (default) or guest")
    .option("--channel <name>", "a channel they join besides the default ones (repeatable)", collect)
    .option("--expires-in-days <days>", "days until the link expires (default 10), or never")
    .option("--no-input", "never prompt (this command asks nothing)")
    .option("--json", 'print {"link", "expires_at"} per invitation as JSON');

interface CreateOptions extends TermsOptions {
  email?: string[];
}

const createCommand = withTerms(
  new Command("create")
    .description("invite people by email (as POST /invites does) and print their links")
    .option("--email <address>", "an address to invite (repeatable)", collect),
).action(async (opts: CreateOptions, cmd: Command) => {
  await withApp(
    configFor(cmd),
    async (app) => {
      const emails = opts.email ?? [];
      if (emails.length === 0) throw new CliError("give at least one --email");
      const realm = await requireRealm(app);
      const owner = requireOperatorOwner(realm);
      const terms = await termsFrom(app, realm, opts);
      const { sent, skipped } = await (
        await inviteActions()
      ).checkInviteUsersSkipping(app, owner, emails.join(","), terms);
      for (const [email, why] of skipped) note(`skipped ${email}: ${why}`);
      if (opts.json) {
        printJson(sent.map((s) => ({ email: s.email, link: s.link, expires_at: expiresAt(s.expiresAt) })));
      } else {
        for (const s of sent)
          printLine(`${s.email}  ${s.link}  (expires ${expiresAt(s.expiresAt) ?? "never"})`);
      }
      emailOffNote(app);
    },
    { doing: "inviting people" },
  );
});

const linkCommand = withTerms(
  new Command("link").description("create a reusable invitation link (as POST /invites/multiuse does)"),
).action(async (opts: TermsOptions, cmd: Command) => {
  await withApp(
    configFor(cmd),
    async (app) => {
      const realm = await requireRealm(app);
      const owner = requireOperatorOwner(realm);
      const terms = await termsFrom(app, realm, opts);
      const { link, expiresAt: at } = await (
        await inviteActions()
      ).checkCreateMultiuseInvite(app, owner, terms);
      if (opts.json) printJson({ link, expires_at: expiresAt(at) });
      else printLine(`${link}  (expires ${expiresAt(at) ?? "never"})`);
    },
    { doing: "creating an invitation link" },
  );
});

const listCommand = new Command("list")
  .description("list pending invitations and reusable links (as GET /invites does for an owner)")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print them as GET /invites' records")
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const invites = await (await inviteActions()).listInvites(app, requireOperatorOwner(realm));
        if (opts.json) return printJson(invites);
        printLine(
          formatTable(
            ["ID", "INVITED", "ROLE", "BY", "EXPIRES"],
            invites.map((i) => [
              String(i.id),
              i.email ?? i.link_url ?? "",
              roleName(i.invited_as),
              realm.user(i.invited_by_user_id)?.delivery_email ?? String(i.invited_by_user_id),
              expiresAt(i.expiry_date) ?? "never",
            ]),
          ),
        );
      },
      { doing: "listing invitations" },
    );
  });

const revokeCommand = new Command("revoke")
  .description("revoke an invitation or a reusable link by ID (see chatd invite list)")
  .argument("<id>", "the invitation's ID")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print the revoked invitation's record")
  .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const owner = requireOperatorOwner(realm);
        const actions = await inviteActions();
        const invite = (await actions.listInvites(app, owner)).find((i) => String(i.id) === id.trim());
        if (!invite) throw new CliError(`no pending invitation with ID ${id}`);
        await actions.checkRevokeInvite(app, owner, invite.id, invite.is_multiuse);
        if (opts.json) printJson(invite);
        else printLine(`revoked the invitation ${invite.id} (${invite.email ?? invite.link_url ?? ""})`);
      },
      { doing: "revoking an invitation" },
    );
  });

export const inviteCommand = new Command("invite")
  .description("invite people: by email or with a reusable link")
  .addCommand(createCommand)
  .addCommand(linkCommand)
  .addCommand(listCommand)
  .addCommand(revokeCommand);

import { useEffect, useState } from "preact/hooks";
import { client } from "../../app.js";
import { api } from "../../api/http.js";
import { serverEmailOn } from "../../api/server-email.js";
import { useSave } from "./SaveState.js";

/** GET /invites' records (Zulip's Invite). */
interface Invite {
  id: number;
  email?: string;
  link_url?: string;
  invited_as: number;
  expiry_date: number | null;
  is_multiuse: boolean;
}

const ROLE_LABELS: Record<number, string> = {
  100: "Owner",
  200: "Administrator",
  300: "Moderator",
  400: "Member",
  600: "Guest",
};

/** The roles the user may invite as: owners only by owners (administrators see this page). */
const invitableRoles = () =>
  Object.entries(ROLE_LABELS)
    .map(([role, label]): [number, string] => [Number(role), label])
    .filter(([role]) => role !== 100 || client.world.role.value === 100);

const expiry = (secs: number | null) =>
  secs === null
    ? "Never"
    : new Date(secs * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * Invitations (#organization/invitations): invite by email, create a reusable link,
 * and revoke pending ones. The server mails email invitations (with email off, it answers
 * with their links, shown here to be handed over); a reusable link is always shown.
 */
export function OrganizationInvitations() {
  const [invites, setInvites] = useState<Invite[] | null>(null);
  const [save, saved] = useSave();
  const reload = async () => {
    const body = await api<{ invites: Invite[] }>("GET", "/invites");
    setInvites(body.invites);
  };
  // Fetched again after every invites_changed event (someone invited, revoked, signed up).
  const version = client.world.invitesVersion.value;
  useEffect(() => {
    void reload().catch(() => setInvites([]));
  }, [version]);
  return (
    <div class="settings-sections">
      {!serverEmailOn() && (
        <p class="settings-notice">
          Email is off on this server, so invitations are not mailed: after inviting, copy each sign-up link
          and send it yourself.
        </p>
      )}
      <InviteByEmail onDone={reload} />
      <InviteLink onDone={reload} />
      {saved}
      <div class="table-scroll">
        <table class="settings-table">
          <caption class="visually-hidden">Pending invitations</caption>
          <thead>
            <tr>
              <th scope="col">Invited</th>
              <th scope="col">Role</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(invites ?? []).map((invite) => {
              const who = invite.email ?? "Reusable link";
              return (
                <tr key={`${invite.is_multiuse}-${invite.id}`}>
                  <td>
                    {invite.is_multiuse ? (
                      <>
                        {who}
                        <br />
                        <code class="invite-link-url">{invite.link_url}</code>
                      </>
                    ) : (
                      who
                    )}
                  </td>
                  <td>{ROLE_LABELS[invite.invited_as] ?? String(invite.invited_as)}</td>
                  <td>{expiry(invite.expiry_date)}</td>
                  <td>
                    <button
                      type="button"
                      class="danger"
                      aria-label={
                        invite.is_multiuse ? `Revoke link ${invite.id}` : `Revoke invitation for ${who}`
                      }
                      onClick={() =>
                        void save(async () => {
                          await api(
                            "DELETE",
                            invite.is_multiuse ? `/invites/multiuse/${invite.id}` : `/invites/${invite.id}`,
                          );
                          await reload();
                        }, "Invitation revoked")
                      }
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {invites !== null && invites.length === 0 && <p>No pending invitations.</p>}
    </div>
  );
}

function RoleSelect({
  id,
  value,
  onChange,
}: {
  id: string;
  value: number;
  onChange: (role: number) => void;
}) {
  return (
    <select id={id} value={String(value)} onChange={(e) => onChange(Number(e.currentTarget.value))}>
      {invitableRoles().map(([role, label]) => (
        <option key={role} value={String(role)}>
          {label}
        </option>
      ))}
    </select>
  );
}

/** Which channels the invited join: the realm's defaults, or the ones chosen. */
interface ChannelChoice {
  defaults: boolean;
  ids: ReadonlySet<number>;
}

const DEFAULT_CHANNELS: ChannelChoice = { defaults: true, ids: new Set() };

const choiceParams = (choice: ChannelChoice) => ({
  stream_ids: choice.defaults ? [] : [...choice.ids],
  include_realm_default_subscriptions: choice.defaults,
});

/** The channels one may invite to: active ones, private only where the inviter is subscribed. */
const invitableChannels = () =>
  [...client.world.channels.value.values()]
    .filter((c) => !c.is_archived && (!c.invite_only || client.world.subscriptions.value.has(c.stream_id)))
    .sort((a, b) => a.name.localeCompare(b.name));

/** Zulip's invitation channels: the organization's default channels, or a choice of them. */
function ChannelPicker({
  value,
  onChange,
}: {
  value: ChannelChoice;
  onChange: (choice: ChannelChoice) => void;
}) {
  return (
    <fieldset class="channel-picker">
      <legend>Channels</legend>
      <label class="checkbox">
        <input
          type="checkbox"
          checked={value.defaults}
          onChange={(e) => onChange({ ...value, defaults: e.currentTarget.checked })}
        />
        Default channels for this organization
      </label>
      {!value.defaults && (
        <ul class="channel-choices">
          {invitableChannels().map((c) => (
            <li key={c.stream_id}>
              <label class="checkbox">
                <input
                  type="checkbox"
                  checked={value.ids.has(c.stream_id)}
                  onChange={(e) => {
                    const ids = new Set(value.ids);
                    if (e.currentTarget.checked) ids.add(c.stream_id);
                    else ids.delete(c.stream_id);
                    onChange({ ...value, ids });
                  }}
                />
                {c.name}
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** chatd's invite_links: POST /invites' answer when email is off. */
interface InviteLinkToHandOver {
  email: string;
  link: string;
}

/** The sign-up links of the invitations just created, each with a Copy button. */
function LinksToHandOver({ links }: { links: readonly InviteLinkToHandOver[] }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async (item: InviteLinkToHandOver, input: HTMLInputElement | null) => {
    try {
      await navigator.clipboard.writeText(item.link);
      setCopied(`Link for ${item.email} copied`);
    } catch {
      // No clipboard (a page not served over HTTPS): select it for the person to copy.
      input?.select();
      setCopied(null);
    }
  };
  return (
    <section class="invite-links" aria-label="Sign-up links to send">
      <h4>Sign-up links to send</h4>
      <ul>
        {links.map((item, i) => (
          <li key={item.email}>
            <label for={`invite-link-${i}`}>
              <span class="visually-hidden">Sign-up link for </span>
              {item.email}
            </label>
            <div class="invite-link-row">
              <input
                id={`invite-link-${i}`}
                readOnly
                value={item.link}
                onFocus={(e) => e.currentTarget.select()}
              />
              <button
                type="button"
                aria-label={`Copy link for ${item.email}`}
                onClick={(e) => void copy(item, e.currentTarget.parentElement!.querySelector("input"))}
              >
                Copy
              </button>
            </div>
          </li>
        ))}
      </ul>
      {copied && (
        <p class="form-ok" role="status">
          {copied}
        </p>
      )}
    </section>
  );
}

function InviteByEmail({ onDone }: { onDone: () => Promise<void> }) {
  const [emails, setEmails] = useState("");
  const [role, setRole] = useState(400);
  const [channels, setChannels] = useState(DEFAULT_CHANNELS);
  const [links, setLinks] = useState<InviteLinkToHandOver[]>([]);
  const [save, saved] = useSave();
  const mailed = serverEmailOn();
  return (
    <form
      class="form"
      aria-label="Invite by email"
      onSubmit={(e) => {
        e.preventDefault();
        setLinks([]);
        void save(
          async () => {
            const body = await api<{ invite_links?: InviteLinkToHandOver[] }>("POST", "/invites", {
              invitee_emails: emails,
              invite_as: role,
              ...choiceParams(channels),
            });
            setEmails("");
            setLinks(body.invite_links ?? []);
            await onDone();
          },
          mailed ? "Invitations sent" : "Invitations created",
        );
      }}
    >
      <h3>Invite by email</h3>
      <label for="invite-emails">Email addresses</label>
      <textarea
        id="invite-emails"
        rows={3}
        required
        placeholder="one@example.com, two@example.com"
        value={emails}
        onInput={(e) => setEmails(e.currentTarget.value)}
      />
      <label for="invite-role">Invite as</label>
      <RoleSelect id="invite-role" value={role} onChange={setRole} />
      <ChannelPicker value={channels} onChange={setChannels} />
      <div class="form-buttons">
        <button type="submit" class="primary">
          {mailed ? "Send invitations" : "Create invitations"}
        </button>
      </div>
      {saved}
      {links.length > 0 && <LinksToHandOver links={links} />}
    </form>
  );
}

function InviteLink({ onDone }: { onDone: () => Promise<void> }) {
  const [role, setRole] = useState(400);
  const [link, setLink] = useState("");
  const [channels, setChannels] = useState(DEFAULT_CHANNELS);
  const [save, saved] = useSave();
  return (
    <form
      class="form"
      aria-label="Invitation link"
      onSubmit={(e) => {
        e.preventDefault();
        void save(async () => {
          const body = await api<{ invite_link: string }>("POST", "/invites/multiuse", {
            invite_as: role,
            ...choiceParams(channels),
          });
          setLink(body.invite_link);
          await onDone();
        }, "Link created");
      }}
    >
      <h3>Invitation link</h3>
      <label for="invite-link-role">Invite as</label>
      <RoleSelect id="invite-link-role" value={role} onChange={setRole} />
      <ChannelPicker value={channels} onChange={setChannels} />
      <div class="form-buttons">
        <button type="submit" class="primary">
          Create link
        </button>
      </div>
      {saved}
      {link && (
        <>
          <label for="invite-link">Link to share</label>
          <input id="invite-link" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
        </>
      )}
    </form>
  );
}

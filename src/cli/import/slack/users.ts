import { arrayIn, optBool, optObj, optStr, str } from "./slack-json.js";
import { ROLE, type RealmTables, type Row } from "./realm-tables.js";
import { SlackImportError } from "./errors.js";

/**
 * users.json -> zerver_userprofile, as Zulip's users_to_zerver_userprofile: the primary
 * owner first, owners as owners, admins as administrators, restricted users as guests,
 * Slack's bots (and Slackbot) as bots, deleted users deactivated, Slack's time zone when it
 * is an IANA name (else America/New_York), users sharing an email merged into one.
 */
export interface SlackUsers {
  /** Slack user or bot id -> Zulip user id. */
  readonly idOf: Map<string, number>;
  /** Zulip user id -> full name, for mentions. */
  readonly nameOf: Map<number, string>;
  /** Zulip user id -> email. */
  readonly emailOf: Map<number, string>;
  /** A user for a Slack id that sends messages but users.json does not list. */
  userFor(slackId: string): number;
  /** An integration's bot (a message with only a bot_id), named by the message's username. */
  botFor(botId: string, name: string): number;
}

const DEFAULT_TIMEZONE = "America/New_York";

/** An email address's local part from a name, as Zulip's Address(username=…) would accept. */
const localPart = (name: string) => name.replace(/[^A-Za-z0-9._+-]/g, "").replace(/^\.+|\.+$/g, "");

export function convertUsers(
  usersJson: unknown,
  tables: RealmTables,
  realmId: number,
  domain: string,
  now: number,
): SlackUsers {
  const file = "users.json";
  const users = arrayIn(usersJson, file);
  const idOf = new Map<string, number>();
  const nameOf = new Map<number, string>();
  const emailOf = new Map<number, string>();
  const takenEmails = new Map<string, number>();
  const botEmailCount = new Map<string, number>();

  /** Zulip's SlackBotEmail: "<name without 'Bot' and spaces>-bot@domain", numbered when taken. */
  const botEmail = (name: string, fallback: string) => {
    let local = localPart(name.replace(/Bot/g, "").replace(/ /g, "").toLowerCase());
    if (local === "") local = fallback.toLowerCase();
    const base = `${local}-bot@${domain}`;
    const count = (botEmailCount.get(base) ?? 0) + 1;
    botEmailCount.set(base, count);
    return count === 1 ? base : `${local}-bot-${count}@${domain}`;
  };
  /** For a person without an email (Zulip's converter stops there): "<handle>@domain", numbered when taken. */
  const personEmail = (handle: string, slackId: string) => {
    const local = localPart(handle) || slackId.toLowerCase();
    let email = `${local}@${domain}`;
    for (let n = 2; takenEmails.has(email.toLowerCase()); n++) email = `${local}-${n}@${domain}`;
    return email;
  };

  const primary = users.find((u) => u.is_primary_owner === true);
  let nextId = 1;

  const add = (row: Row, slackId: string) => {
    const id = row.id as number;
    tables.addUser(row);
    idOf.set(slackId, id);
    nameOf.set(id, row.full_name as string);
    emailOf.set(id, row.email as string);
    takenEmails.set((row.email as string).toLowerCase(), id);
  };

  const ordered = primary ? [primary, ...users.filter((u) => u !== primary)] : users;
  for (const user of ordered) {
    const where = `${file}[${users.indexOf(user)}]`;
    const slackId = str(user, "id", where);
    const handle = str(user, "name", where);
    const profile = optObj(user, "profile", where) ?? {};
    const deleted = optBool(user, "deleted", where);
    const realName = optStr(user, "real_name", where) ?? optStr(profile, "real_name", `${where}.profile`);
    // Zulip's get_user_full_name: the real name for a live user, the handle for a deleted one.
    const fullName = (user.deleted === false ? realName || handle : handle).trim() || handle;
    const isSlackbot = fullName.toLowerCase() === "slackbot";
    const isBot = isSlackbot || optBool(user, "is_bot", where);
    const given = optStr(profile, "email", `${where}.profile`);
    let email: string;
    if (given) email = given;
    else if (optStr(profile, "bot_id", `${where}.profile`) !== undefined) {
      const botName =
        optStr(profile, "real_name_normalized", `${where}.profile`) ??
        optStr(profile, "first_name", `${where}.profile`) ??
        handle;
      email = botEmail(botName, slackId);
    } else if (isSlackbot) email = `imported-slackbot-bot@${domain}`;
    else email = personEmail(handle, slackId);

    const merged = takenEmails.get(email.toLowerCase());
    if (merged !== undefined) {
      idOf.set(slackId, merged);
      continue;
    }
    let role: number = ROLE.MEMBER;
    if (optBool(user, "is_owner", where) || optBool(user, "is_primary_owner", where)) role = ROLE.OWNER;
    else if (optBool(user, "is_admin", where)) role = ROLE.ADMINISTRATOR;
    if (optBool(user, "is_restricted", where) || optBool(user, "is_ultra_restricted", where))
      role = ROLE.GUEST;
    const tz = optStr(user, "tz", where);
    const id = nextId++;
    add(
      userRow({
        id,
        realmId,
        email,
        fullName,
        active: !deleted,
        isBot,
        role,
        now,
        timezone: tz && tz.includes("/") ? tz : DEFAULT_TIMEZONE,
      }),
      slackId,
    );
  }
  if (idOf.size === 0) throw new SlackImportError(`${file}: the export lists no users`);
  let maxId = nextId - 1;

  return {
    idOf,
    nameOf,
    emailOf,
    userFor(slackId) {
      const known = idOf.get(slackId);
      if (known !== undefined) return known;
      const id = ++maxId;
      const fullName = `Slack user ${slackId}`;
      add(
        userRow({
          id,
          realmId,
          email: personEmail(slackId, slackId),
          fullName,
          active: false,
          isBot: false,
          role: ROLE.MEMBER,
          now,
          timezone: DEFAULT_TIMEZONE,
        }),
        slackId,
      );
      return id;
    },
    botFor(botId, name) {
      const known = idOf.get(botId);
      if (known !== undefined) return known;
      const id = ++maxId;
      const fullName = name.trim() || `Deleted Slack Bot ${botId}`;
      add(
        userRow({
          id,
          realmId,
          email: botEmail(fullName, botId),
          fullName,
          active: true,
          isBot: true,
          role: ROLE.MEMBER,
          now,
          timezone: DEFAULT_TIMEZONE,
        }),
        botId,
      );
      return id;
    },
  };
}

interface UserFields {
  id: number;
  realmId: number;
  email: string;
  fullName: string;
  active: boolean;
  isBot: boolean;
  role: number;
  now: number;
  timezone: string;
}

function userRow(u: UserFields): Row {
  return {
    id: u.id,
    realm: u.realmId,
    email: u.email,
    delivery_email: u.email,
    full_name: u.fullName,
    is_active: u.active,
    is_bot: u.isBot,
    // Zulip's DEFAULT_BOT, with no owner: Slack's bots belong to the workspace.
    bot_type: u.isBot ? 1 : null,
    bot_owner: null,
    role: u.role,
    is_mirror_dummy: false,
    avatar_source: "G",
    avatar_version: 1,
    date_joined: u.now,
    last_login: u.now,
    timezone: u.timezone,
    long_term_idle: false,
    tos_version: null,
  };
}

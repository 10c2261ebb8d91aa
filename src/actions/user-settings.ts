import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, botsNotAllowed, noSuchUser } from "../errors.js";
import { hashPassword, isStrongPassword, verifyPassword } from "../lib/passwords.js";
import { loadEmailDomainRule } from "../lib/realm-domains.js";
import { p, type ParamSpec, type ParamValues } from "../params.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isAdminRole } from "../world/roles.js";
import { validateFullName, validateNameAvailable } from "../lib/user-validation.js";
import { doStartEmailChange, validateOwnEmailChange } from "./email-change.js";
import { doChangeFullName } from "./user-update.js";
import { doEndUserSessions } from "./sessions.js";
import { doChangeUserSetting } from "./user-setting-change.js";
import { doTellStatusAway } from "./user-status.js";
import { USER_SETTING_SPECS, settingValue, type SettingValue } from "../world/user-settings.js";

/**
 * PATCH /settings: users change their own settings (Zulip's json_change_settings).
 *
 * USER_SETTINGS is the one registry of what the endpoint accepts. Each entry names its
 * request parameters (the endpoint's parameter spec is their union, so any other setting
 * a client sends comes back in ignored_parameters_unsupported) and turns their values
 * into a validated change. Entries run in Zulip's order; every change is validated before
 * any is written and all are written in one transaction, so a refused request changes
 * nothing. Display, notification and privacy settings are one entry, driven by their
 * own registry (world/user-settings.ts): a new one of those is a line there and a column.
 */

/** The user and realm as the request's transaction sees them. */
export interface SettingContext {
  readonly app: App;
  readonly user: UserRow;
  readonly realm: RealmSnapshot;
  /** The web session the request came with (/json/), or null (/api/v1/). */
  readonly sessionId: number | null;
}

/** A validated change: writes it, with its events, in the request's transaction. */
export type SettingWrite = (app: App, tx: Tx) => Promise<void>;

export interface UserSetting<S extends ParamSpec = ParamSpec, P = unknown> {
  /** The request parameters it reads. */
  readonly params: S;
  /**
   * Slow work done before the transaction (password hashing), so it never holds the
   * write lock; may refuse the request. Its result is passed to `validate`.
   */
  prepare?(app: App, user: UserRow, values: ParamValues<S>): Promise<P>;
  /** The change the values ask for, or null when nothing changes; throwing refuses the request. */
  validate(ctx: SettingContext, values: ParamValues<S>, prepared: P | undefined): SettingWrite | null;
}

const defineSetting = <S extends ParamSpec, P = undefined>(setting: UserSetting<S, P>) =>
  setting as unknown as UserSetting;

/** old_password + new_password: Zulip checks the old password, then the new one's strength. */
const password = defineSetting({
  params: { old_password: p.str().optional(), new_password: p.str().optional() },
  async prepare(app, user, values) {
    if (values.new_password === undefined) return undefined;
    if (!(await verifyPassword(values.old_password ?? "", user.password_hash))) {
      throw badRequest("Wrong password!");
    }
    if (!isStrongPassword(values.new_password)) throw badRequest("New password is too weak!");
    return { verifiedHash: user.password_hash, newHash: await hashPassword(values.new_password, app.scrypt) };
  },
  validate({ user, sessionId }, _values, prepared) {
    if (!prepared) return null;
    // Changed by another request since it was checked: the old password is no longer it.
    if (user.password_hash !== prepared.verifiedHash) throw badRequest("Wrong password!");
    return async (app, tx) => {
      await tx.knex("users").where({ id: user.id }).update({ password_hash: prepared.newHash });
      // Whoever knew the old password is logged out of the web client: every session but
      // the one that made the change (all of them when an API client made it). API keys stay.
      await doEndUserSessions(app, tx, user.id, sessionId ?? undefined);
      tx.afterCommit(() => app.realms.invalidate(user.realm_id));
    };
  },
});

/**
 * email: as Zulip, a confirmation link goes to the new address (actions/email-change.ts);
 * the change is made when it is followed. Administrators are not bound by
 * email_changes_disabled.
 */
const email = defineSetting({
  params: { email: p.str().optional() },
  // The realm's domain rule (emails_restricted_to_domains and realm_domains).
  async prepare(app, user, values) {
    if (values.email === undefined) return undefined;
    const realm = await app.realms.get(app.knex, user.realm_id);
    return loadEmailDomainRule(app.knex, realm.realm);
  },
  validate({ app, user, realm }, values, domainRule) {
    if (values.email === undefined) return null;
    const address = values.email.trim();
    if (address === user.delivery_email) return null;
    validateOwnEmailChange(app, realm, user, address, domainRule ?? (() => null));
    return (app, tx) => doStartEmailChange(app, tx, realm, user, address);
  },
});

/**
 * full_name: where name changes are disabled, a member's change is ignored without an
 * error, as Zulip does (its clients offer no way to ask); administrators may.
 */
const fullName = defineSetting({
  params: { full_name: p.str().optional() },
  validate({ user, realm }, values) {
    if (values.full_name === undefined || values.full_name === user.full_name) return null;
    if (bool(realm.realm.name_changes_disabled) && !isAdminRole(user.role)) return null;
    const name = validateFullName(values.full_name);
    if (name === user.full_name) return null;
    validateNameAvailable(realm, name, user.id);
    return (app, tx) => doChangeFullName(app, tx, user, name);
  },
});

/** The personal settings' parameters, alphabetical as Zulip checks them. */
const PREFERENCE_PARAMS: ParamSpec = Object.fromEntries(
  [...USER_SETTING_SPECS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((spec) => [spec.name, spec.param.optional()]),
);

/**
 * The display, notification and privacy settings (world/user-settings.ts): each one
 * given and different from the stored value is changed, in Zulip's order (timezone
 * last), with its events.
 */
const preferences = defineSetting({
  params: PREFERENCE_PARAMS,
  validate({ user }, values) {
    const changes = USER_SETTING_SPECS.filter((spec) => {
      const value = values[spec.name];
      return value !== undefined && value !== settingValue(spec, user[spec.name]);
    });
    if (changes.length === 0) return null;
    return async (app, tx) => {
      // As it stands now (an earlier setting of this request may have changed its email),
      // then as each change leaves it.
      let current = (await tx.knex<UserRow>("users").where({ id: user.id }).first())!;
      for (const spec of changes) {
        const before = current;
        current = await doChangeUserSetting(app, tx, before, spec.name, values[spec.name] as SettingValue);
        if (spec.name === "presence_enabled")
          await doTellStatusAway(app, tx, before, values[spec.name] !== true);
      }
    };
  },
});

/** Every setting of PATCH /settings, in the order Zulip applies them. */
export const USER_SETTINGS: readonly UserSetting[] = [password, email, fullName, preferences];

/** The endpoint's parameter spec: every setting's parameters. */
export const USER_SETTING_PARAMS: ParamSpec = Object.fromEntries(
  USER_SETTINGS.flatMap((s) => Object.entries(s.params)),
);

export async function checkUpdateUserSettings(
  app: App,
  user: UserRow,
  values: Readonly<Record<string, unknown>>,
  /** The web session that asks (/json/), kept when the password changes; null under /api/v1/. */
  sessionId: number | null,
): Promise<void> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  const prepared: unknown[] = [];
  for (const setting of USER_SETTINGS) {
    prepared.push(setting.prepare ? await setting.prepare(app, user, values) : undefined);
  }
  await app.db.transaction(async (tx) => {
    const realm = await app.realms.get(tx.knex, user.realm_id);
    const current = realm.user(user.id);
    if (!current) throw noSuchUser();
    const ctx: SettingContext = { app, user: current, realm, sessionId };
    const writes = USER_SETTINGS.map((setting, i) => setting.validate(ctx, values, prepared[i]));
    for (const write of writes) if (write) await write(app, tx);
  });
}

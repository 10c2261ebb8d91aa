import { hashPassword } from "../../src/lib/passwords.js";
import { randomBytes } from "node:crypto";
import type { App } from "../../src/app.js";
import { doIssueApiKey } from "../../src/actions/api-keys.js";
import { doCreateRealm } from "../../src/actions/realm.js";
import { ensureSystemBots } from "../../src/actions/system-bots.js";
import { doCreateUser } from "../../src/actions/user-create.js";
import type { UserRow } from "../../src/db/rows.js";
import { ROLE, type Role } from "../../src/world/roles.js";
import { Client } from "./client.js";

export interface TestUser {
  id: number;
  email: string;
  fullName: string;
  apiKey: string;
  password: string;
  role: Role;
  client: Client;
}

export interface TestRealm {
  id: number;
  /** Shakespeare's cast, keyed by first name. */
  users: Record<string, TestUser>;
}

/** The default cast: one user of every role. */
export const CAST: Readonly<Record<string, Role>> = {
  desdemona: ROLE.OWNER,
  iago: ROLE.ADMINISTRATOR,
  prospero: ROLE.MODERATOR,
  hamlet: ROLE.MEMBER,
  othello: ROLE.MEMBER,
  cordelia: ROLE.MEMBER,
  polonius: ROLE.GUEST,
};

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Builds data through the real actions (never raw inserts), so invariants hold. */
export class Factory {
  constructor(
    readonly app: App,
    readonly url: string,
  ) {}

  /** A new realm with the given users (default: the whole cast). Owners may create users. */
  async realm(cast: Readonly<Record<string, Role>> = CAST, name = "Elsinore"): Promise<TestRealm> {
    const realmId = await this.app.db.transaction((tx) =>
      doCreateRealm(tx, { name, stringId: randomBytes(6).toString("hex") }),
    );
    const users: Record<string, TestUser> = {};
    for (const [first, role] of Object.entries(cast)) {
      users[first] = await this.user(realmId, first, role);
    }
    // As chatd init: after the people, whose ids tests have always known.
    await this.app.db.transaction((tx) => ensureSystemBots(this.app, tx, realmId));
    return { id: realmId, users };
  }

  async user(
    realmId: number,
    first: string,
    role: Role = ROLE.MEMBER,
    extra: { isBot?: boolean; botOwnerId?: number; emailAddressVisibility?: number } = {},
  ): Promise<TestUser> {
    const email = `${first}@zulip.test`;
    const fullName = `${capitalize(first)} ${role === ROLE.GUEST ? "Guest" : "Dane"}`;
    const password = `${first}-password`;
    const passwordHash = await hashPassword(password, this.app.scrypt);
    const { user, apiKey } = await this.app.db.transaction(async (tx) => {
      const created = await doCreateUser(this.app, tx, {
        realmId,
        email,
        fullName,
        role,
        passwordHash,
        isBot: extra.isBot,
        botType: extra.isBot ? 1 : null,
        botOwnerId: extra.botOwnerId ?? null,
        emailAddressVisibility: extra.emailAddressVisibility,
        canCreateUsers: role === ROLE.OWNER,
        canChangeUserEmails: role === ROLE.OWNER,
      });
      return { user: created, apiKey: await doIssueApiKey(this.app, tx, created.id, "test") };
    });
    return {
      id: user.id,
      email: user.email,
      fullName,
      apiKey,
      password,
      role,
      client: new Client(this.url, { email: user.email, apiKey }),
    };
  }

  /** The user's current row (through the cache, as requests see it). */
  async row(realmId: number, userId: number): Promise<UserRow> {
    const snapshot = await this.app.realms.get(this.app.knex, realmId);
    const row = snapshot.user(userId);
    if (!row) throw new Error(`no user ${userId}`);
    return row;
  }
}

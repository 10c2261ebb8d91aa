import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { badRequest } from "../errors.js";
import { isValidEmail } from "../lib/emails.js";
import { ROLE } from "../world/roles.js";
import { doIssueApiKey } from "./api-keys.js";
import { doCreateRealm } from "./realm.js";
import { checkFullName, doCreateUser } from "./users.js";

export interface InitInput {
  realmName: string;
  ownerEmail: string;
  ownerName: string;
  ownerPassword: string;
}

export interface InitResult {
  realm_url: string;
  email: string;
  user_id: number;
  api_key: string;
}

export const MIN_PASSWORD_LENGTH = 6;

export function checkPassword(password: string): string {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest(`Password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  }
  return password;
}

export async function realmExists(app: App): Promise<boolean> {
  return (await app.knex("realms").first("id")) !== undefined;
}

/**
 * Creates the server's realm, its system groups and first owner (who holds the
 * server-level can_create_users and can_change_user_emails), and the owner's API key.
 */
export async function checkInitRealm(app: App, input: InitInput): Promise<InitResult> {
  const email = input.ownerEmail.trim();
  if (!isValidEmail(email)) throw badRequest(`Invalid email '${email}'`);
  const fullName = checkFullName(input.ownerName);
  const password = checkPassword(input.ownerPassword);
  const result = await app.db.transaction(async (tx) => {
    if (await tx.knex("realms").first("id")) {
      throw badRequest("A realm already exists in this data directory.");
    }
    const realmId = await doCreateRealm(tx, { name: input.realmName });
    const owner = await doCreateUser(app, tx, {
      realmId,
      email,
      fullName,
      password,
      role: ROLE.OWNER,
      canCreateUsers: true,
      canChangeUserEmails: true,
    });
    const apiKey = await doIssueApiKey(app, tx, owner.id, "chatd init");
    return { realm_url: realmUrl(app.config), email: owner.email, user_id: owner.id, api_key: apiKey };
  });
  app.realms.forgetPrimaryRealm();
  return result;
}

import { validatePassword } from "../actions/init.js";
import { validateFullName } from "../lib/user-validation.js";
import { isValidEmail } from "../lib/emails.js";
import { ROLE_BY_NAME, type Role } from "../world/roles.js";
import { CliError } from "./output.js";

/**
 * The command line's validators of typed values, with the clear messages `chatd init`
 * gives, before a value reaches an action (whose API messages, such as Zulip's "Bad
 * name or username", must stay as they are for clients). Each returns the cleaned value.
 */

export function validateEmail(value: string): string {
  const email = value.trim();
  if (!isValidEmail(email)) throw new CliError(`Invalid email '${email}'`);
  return email;
}

export { validateFullName, validatePassword };

export function validateNotEmpty(what: string) {
  return (value: string): string => {
    const trimmed = value.trim();
    if (!trimmed) throw new CliError(`${what} must not be empty`);
    return trimmed;
  };
}

export const ROLE_NAMES = Object.keys(ROLE_BY_NAME);

export function parseRole(value: string): Role {
  const role = ROLE_BY_NAME[value.trim().toLowerCase()];
  if (role === undefined)
    throw new CliError(`invalid role '${value}' (use one of: ${ROLE_NAMES.join(", ")})`);
  return role;
}

/** A role name validator for prompts: parseRole's message, the name kept as typed. */
export function validateRoleName(value: string): string {
  parseRole(value);
  return value;
}

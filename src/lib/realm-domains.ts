import type { Knex } from "knex";
import { bool, type DbBool, type RealmRow } from "../db/rows.js";

/** Zulip's RealmDomainDict, as register, GET /realm/domains and events carry it. */
export interface RealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

/** The realm's domains, sorted (register and GET /realm/domains). */
export async function realmDomainsOf(knex: Knex, realmId: number): Promise<RealmDomain[]> {
  const rows = await knex("realm_domains")
    .where({ realm_id: realmId })
    .orderBy("domain")
    .select<Array<{ domain: string; allow_subdomains: DbBool }>>("domain", "allow_subdomains");
  return rows.map((r) => ({ domain: r.domain, allow_subdomains: bool(r.allow_subdomains) }));
}

/** Zulip's validate_domain: its messages, or null for a good domain (already lower-case). */
export function domainError(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes(".")) return "Domain must have at least one dot (.)";
  if (domain.length > 255) return "Domain is too long";
  if (domain.startsWith(".") || domain.endsWith(".")) return "Domain cannot start or end with a dot (.)";
  for (const part of domain.split(".")) {
    if (part === "") return "Consecutive '.' are not allowed.";
    if (part.startsWith("-") || part.endsWith("-")) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(part)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

/** Why an address may not join a realm: outside its domains, or with a + where domains rule. */
export type EmailDomainRefusal = "outside_domains" | "contains_plus";

/** Decides an address against a realm's domain rule (Zulip's get_realm_email_validator). */
export type EmailDomainRule = (email: string) => EmailDomainRefusal | null;

/**
 * The realm's rule: any address when emails are not restricted to domains; otherwise one
 * without a + in its local part, in a listed domain or (allow_subdomains) under one.
 * Zulip's disposable-address rule is not applied (chatd has no list of such domains).
 */
export function emailDomainRule(
  realm: Pick<RealmRow, "emails_restricted_to_domains">,
  domains: readonly RealmDomain[],
): EmailDomainRule {
  if (!bool(realm.emails_restricted_to_domains)) return () => null;
  const exact = new Set(domains.map((d) => d.domain));
  const withSubdomains = new Set(domains.filter((d) => d.allow_subdomains).map((d) => d.domain));
  return (email) => {
    const at = email.lastIndexOf("@");
    if (email.slice(0, at).includes("+")) return "contains_plus";
    let domain = email.slice(at + 1).toLowerCase();
    if (exact.has(domain)) return null;
    while (domain.includes(".")) {
      domain = domain.slice(domain.indexOf(".") + 1);
      if (withSubdomains.has(domain)) return null;
    }
    return "outside_domains";
  };
}

/** The rule of a realm as stored (`knex` may be a transaction's). */
export async function loadEmailDomainRule(
  knex: Knex,
  realm: Pick<RealmRow, "id" | "emails_restricted_to_domains">,
): Promise<EmailDomainRule> {
  if (!bool(realm.emails_restricted_to_domains)) return () => null;
  return emailDomainRule(realm, await realmDomainsOf(knex, realm.id));
}

/** Zulip's validate_email_is_valid wording (invitations, email changes). */
export const EMAIL_DOMAIN_ERRORS: Record<EmailDomainRefusal, string> = {
  outside_domains: "Outside your domain.",
  contains_plus: "Email addresses containing + are not allowed.",
};

/** Zulip's HomepageForm wording (the sign-up forms). */
export function signupDomainError(refusal: EmailDomainRefusal, email: string): string {
  return refusal === "contains_plus"
    ? "Email addresses containing + are not allowed in this organization."
    : `Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`;
}

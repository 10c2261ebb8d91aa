import type { Knex } from "knex";
import { JsonableError } from "../errors.js";
import { compileRe2, namedGroupsOf } from "../render/linkifier-regex.js";

/**
 * Linkifiers (Zulip's RealmFilter): validation of a pattern and its URL template as
 * Zulip's filter_pattern_validator, url_template_validator and RealmFilter.clean do,
 * and the realm's list in order.
 *
 * Zulip compiles patterns with re2 and refuses what it refuses; chatd does the same with
 * re2js (render/linkifier-regex.ts), so no pattern can make matching backtrack.
 */

export interface LinkifierRow {
  id: number;
  realm_id: number;
  pattern: string;
  url_template: string;
  order: number;
}

export interface WireLinkifier {
  pattern: string;
  url_template: string;
  id: number;
}

/** Zulip's ValidationFailureError: the first message, and every message by field. */
export const validationFailure = (field: string, message: string) =>
  new JsonableError(message, "BAD_REQUEST", 400, { errors: { [field]: [message] } });

/** Zulip's filter_pattern_validator; returns the pattern's named groups. */
export function validateLinkifierPattern(pattern: string): Set<string> {
  const compiled = compileRe2(pattern);
  if (compiled.regex === null) {
    if (compiled.error === null) throw validationFailure("pattern", "Unknown regular expression error");
    throw validationFailure("pattern", `Bad regular expression: ${compiled.error}`);
  }
  return namedGroupsOf(compiled.regex);
}

const VARSPEC =
  /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9]\d{0,3}|\*)?$/;
/** RFC 6570 literals: no controls, space, quotes, <>\^`{|} and no lone %. */
const LITERALS = /^(?:[^\u0000-\u0020"'%<>\\^`{|}\u007f]|%[0-9A-Fa-f]{2})*$/u; // eslint-disable-line no-control-regex

/** The variable names of an RFC 6570 template, or null if it is not one (uri_template.validate). */
export function templateVariables(template: string): string[] | null {
  const names: string[] = [];
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf("{");
    const literal = open === -1 ? rest : rest.slice(0, open);
    if (!LITERALS.test(literal)) return null;
    if (open === -1) break;
    const close = rest.indexOf("}", open);
    if (close === -1) return null;
    const expression = rest.slice(open + 1, close);
    const body = /^[+#./;?&]/.test(expression) ? expression.slice(1) : expression;
    for (const spec of body.split(",")) {
      if (!VARSPEC.test(spec)) return null;
      names.push(spec.replace(/(:\d+|\*)$/, ""));
    }
    rest = rest.slice(close + 1);
  }
  return names;
}

/** RealmFilter's validators and clean(): the pattern's groups and the template's variables agree. */
export function validateLinkifier(pattern: string, urlTemplate: string): void {
  if (pattern === "") throw validationFailure("pattern", "This field cannot be blank.");
  if (urlTemplate === "") throw validationFailure("url_template", "This field cannot be blank.");
  const groups = validateLinkifierPattern(pattern);
  const variables = templateVariables(urlTemplate);
  if (variables === null) throw validationFailure("url_template", "Invalid URL template.");
  const missingInPattern = [...new Set(variables)].filter((v) => !groups.has(v)).sort();
  if (missingInPattern.length > 0) {
    throw validationFailure(
      "__all__",
      `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`,
    );
  }
  const missingInTemplate = [...groups].filter((g) => !variables.includes(g)).sort();
  if (missingInTemplate.length > 0) {
    throw validationFailure(
      "__all__",
      `Group '${missingInTemplate[0]}' in linkifier pattern is not present in URL template.`,
    );
  }
}

export const duplicateLinkifier = () =>
  validationFailure("__all__", "Realm filter with this Realm and Pattern already exists.");

/** Zulip's linkifiers_for_realm, in their order. */
export async function linkifiersOfRealm(knex: Knex, realmId: number): Promise<WireLinkifier[]> {
  const rows = await knex<LinkifierRow>("linkifiers").where({ realm_id: realmId }).orderBy(["order", "id"]);
  return rows.map((row) => ({ pattern: row.pattern, url_template: row.url_template, id: row.id }));
}

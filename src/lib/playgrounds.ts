import type { Knex } from "knex";
import { templateVariables, validationFailure } from "./linkifiers.js";

/** Code playgrounds (Zulip's RealmPlayground): validation and the realm's list. */

export interface WirePlayground {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

/** Zulip's PLAYGROUND_LANGUAGE_REGEX (the model's validator, after the view's wider check). */
const PLAYGROUND_LANGUAGE = /^[a-z0-9_+\-./#]+$/;

/** RealmPlayground's field validators and clean(), in Zulip's order. */
export function validatePlayground(pygmentsLanguage: string, urlTemplate: string): void {
  const variables = templateVariables(urlTemplate);
  if (variables === null) throw validationFailure("url_template", "Invalid URL template.");
  if (!PLAYGROUND_LANGUAGE.test(pygmentsLanguage)) {
    throw validationFailure("pygments_language", "Invalid characters in pygments language");
  }
  const names = new Set(variables);
  if (!names.has("code")) {
    throw validationFailure("__all__", 'Missing the required variable "code" in the URL template');
  }
  if (names.size !== 1) {
    throw validationFailure("__all__", '"code" should be the only variable present in the URL template');
  }
}

export const duplicatePlayground = () =>
  validationFailure(
    "__all__",
    "Realm playground with this Realm, Pygments language and Name already exists.",
  );

export async function playgroundsOfRealm(knex: Knex, realmId: number): Promise<WirePlayground[]> {
  return knex("realm_playgrounds")
    .where({ realm_id: realmId })
    .orderBy("id")
    .select<WirePlayground[]>("id", "name", "pygments_language", "url_template");
}

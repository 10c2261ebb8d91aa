import {
  checkCreateDrafts,
  checkDeleteDraft,
  requireDraftsSynchronization,
  checkEditDraft,
  type DraftInput,
} from "../actions/drafts.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { pythonStrip } from "../lib/message-content.js";
import { validate, field, p, pathInt, type Validator } from "../params.js";
import { draftsOf } from "../queries/drafts.js";

/** A finite JSON number (Zulip's `int | float`). */
const number: Validator<number> = (value, name) => {
  if (typeof value !== "number" || !Number.isFinite(value)) throw badRequest(`${name} is not a number`);
  return value;
};

/** A string as it is: NUL bytes are the action's to refuse, in Zulip's words. */
const text: Validator<string> = (value, name) => {
  if (typeof value !== "string") throw badRequest(`${name} is not a string`);
  return value;
};

/** Zulip's RequiredStringConstraint: stripped, and not blank. */
const requiredText: Validator<string> = (value, name) => {
  const stripped = pythonStrip(text(value, name));
  if (stripped === "") throw badRequest(`${name} cannot be blank`);
  return stripped;
};

/** Zulip's DraftData: exactly these keys; content is stripped and must not be blank. */
const draft: Validator<DraftInput> = validate.dict({
  type: field.required(validate.oneOf(["", "stream", "private"] as const)),
  to: field.required(validate.list(validate.int())),
  topic: field.required(text),
  content: field.required(requiredText),
  timestamp: field.optional(validate.nullable(validate.anyOf(validate.int(), number))),
});

export const getDrafts = defineEndpoint({
  method: "GET",
  path: "/drafts",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    requireDraftsSynchronization(user);
    const drafts = await draftsOf(app.knex, user.id);
    return { count: drafts.length, drafts };
  },
});

export const createDrafts = defineEndpoint({
  method: "POST",
  path: "/drafts",
  auth: "user",
  params: { drafts: p.json(validate.list(draft)) },
  async handler({ app, user, params }) {
    return { ids: await checkCreateDrafts(app, user, params.drafts) };
  },
});

export const editDraft = defineEndpoint({
  method: "PATCH",
  path: "/drafts/:draft_id",
  auth: "user",
  params: { draft_id: pathInt(), draft: p.json(draft) },
  async handler({ app, user, params }) {
    await checkEditDraft(app, user, params.draft_id, params.draft);
    return {};
  },
});

export const deleteDraft = defineEndpoint({
  method: "DELETE",
  path: "/drafts/:draft_id",
  auth: "user",
  params: { draft_id: pathInt() },
  async handler({ app, user, params }) {
    await checkDeleteDraft(app, user, params.draft_id);
    return {};
  },
});

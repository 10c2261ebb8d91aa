import {
  MAX_SNIPPET_CONTENT_LENGTH,
  MAX_SNIPPET_TITLE_LENGTH,
  checkCreateSavedSnippet,
  checkDeleteSavedSnippet,
  checkUpdateSavedSnippet,
} from "../actions/saved-snippets.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";
import { savedSnippetsOf } from "../queries/saved-snippets.js";

const title = p.str({ trim: true, minLength: 1, maxLength: MAX_SNIPPET_TITLE_LENGTH });
const content = p.str({ trim: true, minLength: 1, maxLength: MAX_SNIPPET_CONTENT_LENGTH });

export const getSavedSnippets = defineEndpoint({
  method: "GET",
  path: "/saved_snippets",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { saved_snippets: await savedSnippetsOf(app.knex, user.id) };
  },
});

export const createSavedSnippet = defineEndpoint({
  method: "POST",
  path: "/saved_snippets",
  auth: "user",
  params: { title, content },
  async handler({ app, user, params }) {
    return { saved_snippet_id: await checkCreateSavedSnippet(app, user, params) };
  },
});

export const updateSavedSnippet = defineEndpoint({
  method: "PATCH",
  path: "/saved_snippets/:saved_snippet_id",
  auth: "user",
  params: { saved_snippet_id: pathInt(), title: title.optional(), content: content.optional() },
  async handler({ app, user, params }) {
    await checkUpdateSavedSnippet(app, user, params.saved_snippet_id, {
      title: params.title,
      content: params.content,
    });
    return {};
  },
});

export const deleteSavedSnippet = defineEndpoint({
  method: "DELETE",
  path: "/saved_snippets/:saved_snippet_id",
  auth: "user",
  params: { saved_snippet_id: pathInt() },
  async handler({ app, user, params }) {
    await checkDeleteSavedSnippet(app, user, params.saved_snippet_id);
    return {};
  },
});

import { MAX_ALERT_WORD_LENGTH, checkAddAlertWords, checkRemoveAlertWords } from "../actions/alert-words.js";
import { defineEndpoint } from "../http/endpoint.js";
import { alertWordsOf } from "../lib/alert-words.js";
import { validate, p } from "../params.js";

export const getAlertWords = defineEndpoint({
  method: "GET",
  path: "/users/me/alert_words",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { alert_words: await alertWordsOf(app.knex, user.id) };
  },
});

export const addAlertWords = defineEndpoint({
  method: "POST",
  path: "/users/me/alert_words",
  auth: "user",
  params: { alert_words: p.listOf(validate.str({ maxLength: MAX_ALERT_WORD_LENGTH })) },
  async handler({ app, user, params }) {
    return { alert_words: await checkAddAlertWords(app, user, params.alert_words) };
  },
});

export const removeAlertWords = defineEndpoint({
  method: "DELETE",
  path: "/users/me/alert_words",
  auth: "user",
  params: { alert_words: p.listOf(validate.str()) },
  async handler({ app, user, params }) {
    return { alert_words: await checkRemoveAlertWords(app, user, params.alert_words) };
  },
});

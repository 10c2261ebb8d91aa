import {
  checkDeleteRealmExport,
  checkStartRealmExport,
  exportConsents,
  realmExports,
} from "../actions/realm-export.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { EXPORT_TYPE } from "../lib/zulip-export/scope.js";
import { p, pathInt } from "../params.js";

/** Zulip's check_int_in_validator([EXPORT_PUBLIC, EXPORT_FULL_WITH_CONSENT]). */
const exportType = (value: number, name: string) => {
  if (value !== EXPORT_TYPE.public && value !== EXPORT_TYPE.fullWithConsent)
    throw badRequest(`Invalid ${name}`);
  return value;
};

export const startRealmExport = defineEndpoint({
  method: "POST",
  path: "/export/realm",
  auth: "admin",
  params: { export_type: p.int({}, exportType).default(EXPORT_TYPE.public) },
  async handler({ app, user, params }) {
    const type =
      params.export_type === EXPORT_TYPE.fullWithConsent ? EXPORT_TYPE.fullWithConsent : EXPORT_TYPE.public;
    return { id: await checkStartRealmExport(app, user, type) };
  },
});

export const getRealmExports = defineEndpoint({
  method: "GET",
  path: "/export/realm",
  auth: "admin",
  params: {},
  async handler({ app, user }) {
    return { exports: await realmExports(app, app.knex, user.realm_id) };
  },
});

export const deleteRealmExport = defineEndpoint({
  method: "DELETE",
  path: "/export/realm/:export_id",
  auth: "admin",
  params: { export_id: pathInt() },
  async handler({ app, user, params }) {
    await checkDeleteRealmExport(app, user, params.export_id);
    return {};
  },
});

export const getExportConsents = defineEndpoint({
  method: "GET",
  path: "/export/realm/consents",
  auth: "admin",
  params: {},
  handler({ realm }) {
    return Promise.resolve({ export_consents: exportConsents(realm.users) });
  },
});

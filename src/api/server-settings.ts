import { realmUrl } from "../config.js";
import { defineEndpoint } from "../http/endpoint.js";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION, realmIconUrl } from "../presenters/realm.js";

/** Unauthenticated discovery; the python client calls it before anything else. */
export const getServerSettings = defineEndpoint({
  method: "GET",
  path: "/server_settings",
  auth: "anonymous",
  params: {},
  async handler({ app }) {
    const realm = await app.realms.primaryRealm(app.knex);
    const url = realmUrl(app.config);
    return {
      authentication_methods: {
        password: true,
        dev: false,
        email: true,
        ldap: false,
        remoteuser: false,
        github: false,
        azuread: false,
        gitlab: false,
        apple: false,
        google: false,
        saml: false,
        "openid connect": false,
      },
      external_authentication_methods: [],
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_url: url,
      realm_uri: url,
      realm_name: realm?.realm.name ?? "",
      realm_icon: realm ? realmIconUrl(app.config, realm.realm) : "",
      realm_description: realm?.realm.description ?? "",
      realm_web_public_access_enabled: false,
    };
  },
});

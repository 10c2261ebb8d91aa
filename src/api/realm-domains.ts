import {
  checkAddRealmDomain,
  checkChangeRealmDomain,
  checkRemoveRealmDomain,
} from "../actions/realm-domains.js";
import { defineEndpoint } from "../http/endpoint.js";
import { realmDomainsOf } from "../lib/realm-domains.js";
import { p } from "../params.js";

/** Zulip's zerver/views/realm_domains.py: anyone reads the list, owners change it. */

export const listRealmDomains = defineEndpoint({
  method: "GET",
  path: "/realm/domains",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { domains: await realmDomainsOf(app.knex, user.realm_id) };
  },
});

export const createRealmDomain = defineEndpoint({
  method: "POST",
  path: "/realm/domains",
  auth: "owner",
  params: { domain: p.str(), allow_subdomains: p.bool() },
  async handler({ app, user, params }) {
    const { id, domain } = await checkAddRealmDomain(app, user, params.domain, params.allow_subdomains);
    return { new_domain: [id, domain] };
  },
});

export const updateRealmDomain = defineEndpoint({
  method: "PATCH",
  path: "/realm/domains/:domain",
  auth: "owner",
  params: { domain: p.path(p.str()), allow_subdomains: p.bool() },
  async handler({ app, user, params }) {
    await checkChangeRealmDomain(app, user, params.domain, params.allow_subdomains);
    return {};
  },
});

export const deleteRealmDomain = defineEndpoint({
  method: "DELETE",
  path: "/realm/domains/:domain",
  auth: "owner",
  params: { domain: p.path(p.str()) },
  async handler({ app, user, params }) {
    await checkRemoveRealmDomain(app, user, params.domain);
    return {};
  },
});

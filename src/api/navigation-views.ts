import {
  checkAddNavigationView,
  checkRemoveNavigationView,
  checkUpdateNavigationView,
} from "../actions/navigation-views.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p } from "../params.js";
import { navigationViewsOf } from "../queries/navigation-views.js";

const MAX_FRAGMENT_LENGTH = 255;
const MAX_NAME_LENGTH = 100;
const nameParam = p.str({ trim: true, minLength: 1, maxLength: MAX_NAME_LENGTH });

export const getNavigationViews = defineEndpoint({
  method: "GET",
  path: "/navigation_views",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return { navigation_views: await navigationViewsOf(app.knex, user.id) };
  },
});

export const addNavigationView = defineEndpoint({
  method: "POST",
  path: "/navigation_views",
  auth: "user",
  params: {
    fragment: p.str({ trim: true, minLength: 1, maxLength: MAX_FRAGMENT_LENGTH }),
    is_pinned: p.bool(),
    name: nameParam.optional(),
  },
  async handler({ app, user, params }) {
    await checkAddNavigationView(app, user, {
      fragment: params.fragment,
      isPinned: params.is_pinned,
      name: params.name,
    });
    return {};
  },
});

/** The fragment is the rest of the path and may contain slashes (narrow/is/starred). */
export const updateNavigationView = defineEndpoint({
  method: "PATCH",
  path: "/navigation_views/*fragment",
  auth: "user",
  params: {
    fragment: p.path(p.str()),
    is_pinned: p.bool().optional(),
    name: nameParam.optional(),
  },
  async handler({ app, user, params }) {
    await checkUpdateNavigationView(app, user, params.fragment, {
      isPinned: params.is_pinned,
      name: params.name,
    });
    return {};
  },
});

export const removeNavigationView = defineEndpoint({
  method: "DELETE",
  path: "/navigation_views/*fragment",
  auth: "user",
  params: { fragment: p.path(p.str()) },
  async handler({ app, user, params }) {
    await checkRemoveNavigationView(app, user, params.fragment);
    return {};
  },
});

import { api } from "./api/http.js";
import type { InitialState, ServerEvent } from "./api/types.js";
import { installLiveApi, type MessagesAnswer } from "./live/api.js";
import { LiveQueue } from "./live/queue.js";
import { ClientState } from "./model/client-state.js";

// The real calls behind live/ (which stays DOM-free, hence injected).
installLiveApi({
  register: (params) => api<InitialState>("POST", "/register", params),
  events: (params, signal) => api<{ events: ServerEvent[] }>("GET", "/events", params, { signal }),
  messages: (params) => api<MessagesAnswer>("GET", "/messages", params),
});

/** The one client state of the page and its event queue. */
export const client = new ClientState();
export const queue = new LiveQueue(client);

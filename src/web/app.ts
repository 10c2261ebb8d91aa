import { LiveQueue } from "./live/queue.js";
import { ClientState } from "./model/client-state.js";

/** The one client state of the page and its event queue. */
export const client = new ClientState();
export const queue = new LiveQueue(client);

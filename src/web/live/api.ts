import type { InitialState, Message, ServerEvent } from "../api/types.js";

/**
 * The three calls live/ makes to the server: register, poll the queue, fetch messages.
 * live/ builds their parameters; the calls themselves are injected so that live/ stays
 * DOM-free (the browser's fetch wrapper, api/http.ts, reads the page) and runs in Node
 * under test. The app installs the real calls (app.ts); tests pass their own.
 */
export type CallParams = Record<string, string | number | boolean | object | null | undefined>;

export interface MessagesAnswer {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
  found_anchor: boolean;
  anchor: number;
}

export interface LiveApi {
  /** POST /register. */
  register: (params: CallParams) => Promise<InitialState>;
  /** GET /events (a long poll, abandoned through `signal`). */
  events: (params: CallParams, signal: AbortSignal) => Promise<{ events: ServerEvent[] }>;
  /** GET /messages. */
  messages: (params: CallParams) => Promise<MessagesAnswer>;
}

let installed: LiveApi | null = null;

/** Makes `calls` the default of every LiveQueue and fetch made afterwards. */
export function installLiveApi(calls: LiveApi): void {
  installed = calls;
}

/** The installed calls (the real ones, once the app has started). */
export function liveApi(): LiveApi {
  if (!installed) throw new Error("live/api.ts: no API installed (app.ts installs the real one)");
  return installed;
}

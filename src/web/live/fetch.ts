import type { ClientState } from "../model/client-state.js";
import type { MessageList } from "../model/messages.js";
import { apiNarrow } from "../model/narrow.js";
import { liveApi, type LiveApi, type MessagesAnswer } from "./api.js";

/** The GET /messages call (the installed one unless a caller passes its own). */
export type MessagesCall = LiveApi["messages"];

export const BATCH = 100;

/** GET /messages for a list: its narrow, around an anchor; the answer goes to the store and the list. */
async function fetchInto(
  state: ClientState,
  list: MessageList,
  anchor: number | "first_unread" | "newest" | "oldest",
  before: number,
  after: number,
  kind: "initial" | "older" | "newer",
  messages: MessagesCall,
): Promise<MessagesAnswer | null> {
  if (list.loading.value !== null) return null;
  list.loading.value = kind;
  list.error.value = null;
  const generation = state.generation.value;
  try {
    const answer = await messages({
      narrow: apiNarrow(list.narrow),
      anchor: String(anchor),
      num_before: before,
      num_after: after,
      apply_markdown: true,
      client_gravatar: false,
      include_anchor: true,
    });
    // The queue was registered anew meanwhile: this answer may predate what the new state knows.
    if (state.generation.value !== generation) return null;
    state.messages.put(answer.messages);
    list.addFetched(
      answer.messages.map((m) => m.id),
      { oldest: answer.found_oldest, newest: answer.found_newest },
    );
    return answer;
  } catch (err) {
    if (state.generation.value === generation) list.error.value = (err as Error).message;
    throw err;
  } finally {
    // After a new register the list was reset and may be fetching anew: that fetch is not this one's.
    if (state.generation.value === generation) list.loading.value = null;
  }
}

/** Opens a list: around `near` if given, else at the first unread message (or the newest). */
export async function loadInitial(
  state: ClientState,
  list: MessageList,
  near: number | null,
  messages: MessagesCall = liveApi().messages,
): Promise<void> {
  const answer = await fetchInto(
    state,
    list,
    near ?? "first_unread",
    BATCH / 2,
    BATCH / 2,
    "initial",
    messages,
  );
  if (!answer) return;
  const ids = list.ids.value;
  list.anchor.value =
    near ??
    (answer.found_anchor || ids.includes(answer.anchor) ? answer.anchor : (ids[ids.length - 1] ?? null));
}

export async function loadOlder(
  state: ClientState,
  list: MessageList,
  messages: MessagesCall = liveApi().messages,
): Promise<void> {
  const first = list.ids.value[0];
  if (list.foundOldest.value || first === undefined) return;
  await fetchInto(state, list, first, BATCH, 0, "older", messages);
}

export async function loadNewer(
  state: ClientState,
  list: MessageList,
  messages: MessagesCall = liveApi().messages,
): Promise<void> {
  const last = list.ids.value[list.ids.value.length - 1];
  if (list.foundNewest.value || last === undefined) return;
  await fetchInto(state, list, last, 0, BATCH, "newer", messages);
}

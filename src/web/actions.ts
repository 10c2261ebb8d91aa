import { api, endSession, upload } from "./api/http.js";
import type { Message } from "./api/types.js";
import type { ClientState } from "./model/client-state.js";
import { apiNarrow, type Narrow } from "./model/narrow.js";

/**
 * What a person does, as API calls. None changes the client's state itself: the event
 * each causes comes back through the queue (within milliseconds) and is applied there,
 * exactly as a change made by another client would be.
 */

export type Destination =
  { kind: "stream"; streamId: number; topic: string } | { kind: "dm"; userIds: number[] };

export function sendMessage(to: Destination, content: string, queueId: string, localId: string) {
  return api<{ id: number }>(
    "POST",
    "/messages",
    to.kind === "stream"
      ? { type: "stream", to: to.streamId, topic: to.topic, content, queue_id: queueId, local_id: localId }
      : { type: "direct", to: to.userIds, content, queue_id: queueId, local_id: localId },
  );
}

/** The Markdown source of a message (for editing and quoting). */
export async function rawContent(messageId: number): Promise<string> {
  const answer = await api<{ raw_content?: string; message?: { content: string } }>(
    "GET",
    `/messages/${messageId}`,
    { apply_markdown: false },
  );
  return answer.message?.content ?? answer.raw_content ?? "";
}

export const editMessage = (messageId: number, change: { content?: string; topic?: string }) =>
  api("PATCH", `/messages/${messageId}`, {
    ...change,
    ...(change.topic === undefined ? {} : { propagate_mode: "change_one" }),
  });

export const deleteMessage = (messageId: number) => api("DELETE", `/messages/${messageId}`);

export const setFlag = (messageIds: number[], flag: string, add: boolean) =>
  messageIds.length === 0
    ? Promise.resolve()
    : api("POST", "/messages/flags", { messages: messageIds, op: add ? "add" : "remove", flag });

interface FlagsNarrowAnswer {
  found_newest: boolean;
  last_processed_id: number | null;
}

/** Marks every message of a narrow read, in batches as Zulip's web app does. */
export async function markNarrowRead(narrow: Narrow): Promise<void> {
  let anchor: string | number = "oldest";
  for (;;) {
    const answer: FlagsNarrowAnswer = await api<FlagsNarrowAnswer>("POST", "/messages/flags/narrow", {
      anchor: String(anchor),
      include_anchor: anchor === "oldest",
      num_before: 0,
      num_after: 1000,
      narrow: apiNarrow(narrow),
      op: "add",
      flag: "read",
    });
    if (answer.found_newest || answer.last_processed_id === null) return;
    anchor = answer.last_processed_id;
  }
}

export function toggleReaction(
  message: Message,
  myUserId: number,
  emoji: { name: string; code: string; type: string },
) {
  const mine = message.reactions.some(
    (r) => r.user_id === myUserId && r.emoji_code === emoji.code && r.reaction_type === emoji.type,
  );
  return api(mine ? "DELETE" : "POST", `/messages/${message.id}/reactions`, {
    emoji_name: emoji.name,
    emoji_code: emoji.code,
    reaction_type: emoji.type,
  });
}

export const renderPreview = (content: string) =>
  api<{ rendered: string }>("POST", "/messages/render", { content }).then((a) => a.rendered);

export function sendTyping(to: Destination, op: "start" | "stop") {
  return api(
    "POST",
    "/typing",
    to.kind === "stream"
      ? { type: "stream", stream_id: to.streamId, topic: to.topic, op }
      : { type: "direct", to: to.userIds, op },
  );
}

export function uploadFile(file: File, onProgress: (fraction: number) => void) {
  const form = new FormData();
  form.append("file", file, file.name);
  return upload<{ url: string; filename?: string }>("/user_uploads", form, onProgress);
}

export const subscribe = (names: string[], extra: { description?: string; invite_only?: boolean } = {}) =>
  api("POST", "/users/me/subscriptions", {
    subscriptions: names.map((name) => ({
      name,
      ...(extra.description ? { description: extra.description } : {}),
    })),
    ...(extra.invite_only === undefined ? {} : { invite_only: extra.invite_only }),
  });

export const unsubscribe = (names: string[]) =>
  api("DELETE", "/users/me/subscriptions", { subscriptions: names });

export const setSubscriptionProperty = (streamId: number, property: string, value: unknown) =>
  api("POST", "/users/me/subscriptions/properties", {
    subscription_data: [{ stream_id: streamId, property, value }],
  });

export const updateSettings = (changes: Record<string, unknown>) =>
  api("PATCH", "/settings", changes as Record<string, string | number | boolean>);

export const setStatus = (status: {
  status_text: string;
  emoji_name: string;
  emoji_code?: string;
  reaction_type?: string;
}) => api("POST", "/users/me/status", status);

export const setTopicVisibility = (streamId: number, topic: string, policy: number) =>
  api("POST", "/user_topics", { stream_id: streamId, topic, visibility_policy: policy });

export function reportPresence(state: ClientState, active: boolean, newUserInput: boolean) {
  return api<{ presences?: Record<string, { active_timestamp: number; idle_timestamp: number }> }>(
    "POST",
    "/users/me/presence",
    {
      status: active ? "active" : "idle",
      new_user_input: newUserInput,
      slim_presence: true,
      ping_only: false,
    },
  ).then((answer) => {
    if (!answer.presences) return;
    const next = new Map(state.world.presence.value);
    for (const [id, presence] of Object.entries(answer.presences)) next.set(Number(id), presence);
    state.world.presence.value = next;
  });
}

/** Logs out: the server ends the session and its event queues; the page becomes the login form. */
export async function logOut(stopEvents: () => void): Promise<void> {
  stopEvents();
  const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
  await fetch("/accounts/logout/", {
    method: "POST",
    headers: { "X-CSRFToken": token, Accept: "application/json" },
    credentials: "same-origin",
  }).catch(() => undefined);
  endSession();
}

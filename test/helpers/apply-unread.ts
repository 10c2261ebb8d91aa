import type { ApplyContext, Event, State } from "./apply-events.js";

/**
 * What a client does with `unread_msgs` as message and update_message_flags events
 * arrive (Zulip's apply_unread_message_event and its flag handling).
 */

interface Unread {
  pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  count: number;
  old_unreads_missing: boolean;
}

/** Muting as the client knows it: its subscriptions and topic visibility policies. */
function isUnmuted(state: State, streamId: number, topic: string): boolean {
  const sub = ((state.subscriptions as Event[] | undefined) ?? []).find((s) => s.stream_id === streamId);
  const policy = ((state.user_topics as Event[] | undefined) ?? []).find(
    (t) => t.stream_id === streamId && String(t.topic_name).toLowerCase() === topic.toLowerCase(),
  )?.visibility_policy as number | undefined;
  return sub?.is_muted ? policy === 2 || policy === 3 : policy !== 1;
}

/** Muting changed (a channel or a topic): what counts as unread changes with it. */
export function recountUnread(state: State): void {
  const unread = state.unread_msgs as Unread | undefined;
  if (unread) recount(state, unread);
}

function recount(state: State, unread: Unread): void {
  let count = 0;
  for (const s of unread.streams)
    if (isUnmuted(state, s.stream_id, s.topic)) count += s.unread_message_ids.length;
  for (const list of [unread.pms, unread.huddles])
    for (const entry of list) count += entry.unread_message_ids.length;
  unread.count = count;
  unread.pms.sort((a, b) => a.other_user_id - b.other_user_id);
  unread.streams.sort((a, b) => a.stream_id - b.stream_id || (a.topic < b.topic ? -1 : 1));
  unread.huddles.sort((a, b) => (a.user_ids_string < b.user_ids_string ? -1 : 1));
  for (const list of [unread.pms, unread.streams, unread.huddles])
    for (const entry of list) entry.unread_message_ids.sort((a, b) => a - b);
}

type Where = { type: "stream"; stream_id: number; topic: string } | { type: "private"; user_ids: number[] };

function add(
  state: State,
  unread: Unread,
  id: number,
  where: Where,
  mentioned: boolean,
  ctx: ApplyContext,
): void {
  if (where.type === "stream") {
    let entry = unread.streams.find((s) => s.stream_id === where.stream_id && s.topic === where.topic);
    if (!entry)
      unread.streams.push(
        (entry = { stream_id: where.stream_id, topic: where.topic, unread_message_ids: [] }),
      );
    entry.unread_message_ids.push(id);
  } else if (where.user_ids.length <= 1) {
    const other = where.user_ids[0] ?? ctx.userId!;
    let entry = unread.pms.find((p) => p.other_user_id === other);
    if (!entry) unread.pms.push((entry = { other_user_id: other, sender_id: other, unread_message_ids: [] }));
    entry.unread_message_ids.push(id);
  } else {
    const key = [...where.user_ids, ctx.userId!].sort((a, b) => a - b).join(",");
    let entry = unread.huddles.find((h) => h.user_ids_string === key);
    if (!entry) unread.huddles.push((entry = { user_ids_string: key, unread_message_ids: [] }));
    entry.unread_message_ids.push(id);
  }
  if (mentioned && !unread.mentions.includes(id)) unread.mentions.push(id);
  recount(state, unread);
}

function remove(state: State, unread: Unread, ids: ReadonlySet<number>): void {
  for (const key of ["pms", "streams", "huddles"] as const) {
    const list = unread[key] as Array<{ unread_message_ids: number[] }>;
    for (const entry of list)
      entry.unread_message_ids = entry.unread_message_ids.filter((id) => !ids.has(id));
    (unread[key] as unknown[]) = list.filter((entry) => entry.unread_message_ids.length > 0);
  }
  unread.mentions = unread.mentions.filter((id) => !ids.has(id));
  recount(state, unread);
}

export function applyUnreadForMessage(state: State, event: Event, ctx: ApplyContext): void {
  const unread = state.unread_msgs as Unread | undefined;
  const flags = (event.flags as string[] | undefined) ?? [];
  if (!unread || flags.includes("read")) return;
  const message = event.message as Event;
  const where: Where =
    message.type === "stream"
      ? { type: "stream", stream_id: message.stream_id as number, topic: message.subject as string }
      : {
          type: "private",
          user_ids: (message.display_recipient as Event[])
            .map((u) => u.id as number)
            .filter((id) => id !== ctx.userId),
        };
  const unmuted = where.type === "private" || isUnmuted(state, where.stream_id, where.topic);
  const mentioned = flags.includes("mentioned") || (flags.includes("wildcard_mentioned") && unmuted);
  add(state, unread, message.id as number, where, mentioned, ctx);
}

export function applyUpdateMessageFlags(state: State, event: Event, ctx: ApplyContext): void {
  const unread = state.unread_msgs as Unread | undefined;
  if (!unread || event.flag !== "read") return;
  if (event.op === "add") {
    if (event.all) remove(state, unread, new Set(allIds(unread)));
    else remove(state, unread, new Set(event.messages as number[]));
    return;
  }
  const details = event.message_details as Record<string, Event>;
  for (const id of event.messages as number[]) {
    const d = details[String(id)]!;
    const where: Where =
      d.type === "stream"
        ? { type: "stream", stream_id: d.stream_id as number, topic: d.topic as string }
        : { type: "private", user_ids: d.user_ids as number[] };
    add(state, unread, id, where, d.mentioned === true, ctx);
  }
}

function allIds(unread: Unread): number[] {
  return [...unread.pms, ...unread.streams, ...unread.huddles].flatMap((e) => e.unread_message_ids);
}

/** Deleted messages leave the unread counts (max_message_id is the test's concern). */
export function applyDeleteMessage(state: State, event: Event): void {
  const unread = state.unread_msgs as Unread | undefined;
  if (!unread) return;
  const ids = (event.message_ids as number[] | undefined) ?? [event.message_id as number];
  remove(state, unread, new Set(ids));
}

/** Topic edits move unread messages to their new topic. */
export function applyUpdateMessage(state: State, event: Event, ctx: ApplyContext): void {
  const unread = state.unread_msgs as Unread | undefined;
  if (!unread || typeof event.subject !== "string") return;
  const ids = new Set(event.message_ids as number[]);
  const moved = unread.streams.flatMap((s) => s.unread_message_ids.filter((id) => ids.has(id)));
  if (moved.length === 0) return;
  const mentioned = new Set(unread.mentions);
  remove(state, unread, new Set(moved));
  const where: Where = { type: "stream", stream_id: event.stream_id as number, topic: event.subject };
  for (const id of moved) add(state, unread, id, where, mentioned.has(id), ctx);
}

import { hasCapability, type EmptyTopicHint, type QueueOptions } from "../../wire/events.js";

/**
 * The empty_topic_name capability outside message events: clients without it get the
 * realm's name for the empty topic wherever an event names a topic. Events carry the
 * name as a hint only when one of their topics is empty.
 */

/** The hint for an event naming these topics: the realm's name if any of them is "". */
export const emptyTopicHint = (displayName: string, ...topics: Array<string | undefined>): EmptyTopicHint =>
  topics.includes("") ? { _emptyTopicName: displayName } : {};

/**
 * Removes the hint and, for a client without empty_topic_name, puts the realm's name in
 * place of "" in the named fields (of the event itself, or of each record in `records`).
 */
export function presentEmptyTopics<T extends EmptyTopicHint>(
  event: T,
  options: QueueOptions,
  fields: readonly string[],
): Omit<T, "_emptyTopicName"> {
  const { _emptyTopicName: name, ...rest } = event;
  if (name === undefined || hasCapability(options, "empty_topic_name")) return rest;
  const shaped: Record<string, unknown> = { ...rest };
  for (const field of fields) if (shaped[field] === "") shaped[field] = name;
  return shaped as Omit<T, "_emptyTopicName">;
}

/** The realm's name in place of an empty `topic` in each record (unread message details). */
export function presentEmptyTopicsIn(
  records: Readonly<Record<string, Record<string, unknown>>>,
  name: string,
): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(records).map(([key, record]) => [
      key,
      record.topic === "" ? { ...record, topic: name } : record,
    ]),
  );
}

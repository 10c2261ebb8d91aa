import { TOPICS_POLICIES, type TopicsPolicy } from "../db/channel-rows.js";
import { badRequest, badValue } from "../errors.js";
import { codePointLength, p, type Param } from "../params.js";
import { LIMITS } from "./realm-limits.js";

/** Unicode non-characters: U+FDD0..U+FDEF and the last two code points of every plane. */
function isNonCharacter(cp: number): boolean {
  return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
}

/** Control (Cc) or surrogate (Cs) characters, or non-characters: Zulip refuses them in names. */
function isUnprintable(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  return /\p{Cc}|\p{Cs}/u.test(ch) || isNonCharacter(cp);
}

/** The first unprintable character's 1-based position, or null. */
export function unprintablePosition(name: string): number | null {
  let position = 0;
  for (const ch of name) {
    position++;
    if (isUnprintable(ch)) return position;
  }
  return null;
}

/** Zulip's check_stream_name on a name already stripped of surrounding spaces. */
export function validateChannelName(raw: string): string {
  const name = raw.trim();
  if (name === "") throw badRequest("Channel name can't be empty.");
  if (codePointLength(name) > LIMITS.max_stream_name_length) {
    throw badRequest(`Channel name too long (limit: ${LIMITS.max_stream_name_length} characters).`);
  }
  const position = unprintablePosition(name);
  if (position !== null) throw badRequest(`Invalid character in channel name, at position ${position}.`);
  return name;
}

/** Zulip's check_channel_folder_name (availability is checked by the caller). */
export function validateChannelFolderName(raw: string): string {
  const name = raw.trim();
  if (name === "") throw badRequest("Channel folder name can't be empty.");
  if (codePointLength(name) > LIMITS.max_channel_folder_name_length) {
    throw badRequest(`name is too long (limit: ${LIMITS.max_channel_folder_name_length} characters)`);
  }
  const position = unprintablePosition(name);
  if (position !== null) {
    throw badRequest(`Invalid character in channel folder name, at position ${position}.`);
  }
  return name;
}

/** Channel descriptions are one line: newlines become spaces, as Zulip does. */
export const normalizeChannelDescription = (description: string) => description.replace(/\n/g, " ");

/** A description parameter: plain text, at most max_stream_description_length. */
export const channelDescriptionParam = () => p.str({ maxLength: LIMITS.max_stream_description_length });

const retentionError = (value: string) => badValue("message_retention_days", value);

/**
 * message_retention_days: a positive number of days, "realm_default" (null: the
 * organization's setting) or "unlimited" (-1). Strings may come raw or JSON-quoted.
 */
export const retentionDaysParam = (): Param<number | null> =>
  p.custom((raw) => {
    const value = raw.trim().replace(/^"(.*)"$/, "$1");
    if (value === "realm_default") return null;
    if (value === "unlimited") return -1;
    if (!/^-?\d+$/.test(value)) throw retentionError(value);
    const days = Number(value);
    if (!Number.isSafeInteger(days) || days <= 0) throw retentionError(value);
    return days;
  });

/** topics_policy: one of Zulip's four values, raw or JSON-quoted. */
export const topicsPolicyParam = (): Param<TopicsPolicy> =>
  p.custom((raw, name) => {
    const value = raw.trim().replace(/^"(.*)"$/, "$1");
    if (!(TOPICS_POLICIES as readonly string[]).includes(value)) throw badRequest(`Invalid ${name}`);
    return value as TopicsPolicy;
  });

/** Zulip's check_color: #rgb to #rrggbb. */
export function validateColor(value: string, name: string): string {
  if (!/^#[0-9a-fA-F]{3,6}$/.test(value)) throw badRequest(`${name} is not a valid hex color code`);
  return value;
}

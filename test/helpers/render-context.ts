import type { MentionableUser, RenderContext } from "../../src/render/message.js";

/**
 * A small organization for renderer tests: users (one deactivated, two sharing a name),
 * groups (one deactivated), channels, a custom emoji, and one topic with messages.
 */
export const USERS: readonly MentionableUser[] = [
  { id: 10, full_name: "King Hamlet", is_active: true },
  { id: 11, full_name: "Othello", is_active: true },
  { id: 12, full_name: "Polonius", is_active: false },
  { id: 13, full_name: "Desdemona", is_active: true },
  { id: 14, full_name: "Sam Smith", is_active: true },
  { id: 15, full_name: "Sam Smith", is_active: true },
];

export const GROUPS = [
  { id: 17, name: "support", deactivated: false },
  { id: 18, name: "retired", deactivated: true },
];

export const CHANNELS = [
  { id: 1, name: "Denmark" },
  { id: 9, name: "announce" },
  { id: 20, name: "design team" },
];

export const REALM_URL = "http://zulip.testserver";

export function fakeRenderContext(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    userByFullName: (name) => USERS.filter((u) => u.full_name.toLowerCase() === name.toLowerCase()),
    userById: (id) => USERS.find((u) => u.id === id),
    groupByName: (name) => GROUPS.find((g) => g.name.toLowerCase() === name.toLowerCase()),
    channelByName: (name) => CHANNELS.find((c) => c.name === name),
    realmEmoji: (name) =>
      name === "green_tick" ? { id: 1, name, source_url: "/user_avatars/2/emoji/images/1.png" } : undefined,
    emptyTopicDisplayName: "general chat",
    realmUrl: REALM_URL,
    latestMessageIdInTopic: (channelId, topic) =>
      channelId === 9 && topic === "Zulip updates" ? 214 : undefined,
    now: () => new Date("2024-01-15T12:00:00Z"),
    ...overrides,
  };
}

import type {
  AlertWordsEvent,
  DeviceEvent,
  DraftsEvent,
  MutedUsersEvent,
  NavigationViewEvent,
  RemindersEvent,
  SavedSnippetsEvent,
  ScheduledMessagesEvent,
} from "../../wire/events.js";
import type {
  WireDraft,
  WireNavigationView,
  WireReminder,
  WireSavedSnippet,
  WireScheduledMessage,
} from "../../wire/records.js";

/**
 * Events about a user's own data, sent to that user only: navigation views, saved
 * snippets, drafts, scheduled messages, reminders, mobile devices, muted users and alert
 * words (the last two always carry the whole list).
 */

export const navigationViewEvents = {
  add(view: WireNavigationView): NavigationViewEvent {
    return { type: "navigation_view", op: "add", navigation_view: view };
  },
  update(fragment: string, data: { name?: string; is_pinned?: boolean }): NavigationViewEvent {
    return { type: "navigation_view", op: "update", fragment, data };
  },
  remove(fragment: string): NavigationViewEvent {
    return { type: "navigation_view", op: "remove", fragment };
  },
};

export const savedSnippetEvents = {
  add(snippet: WireSavedSnippet): SavedSnippetsEvent {
    return { type: "saved_snippets", op: "add", saved_snippet: snippet };
  },
  update(snippet: WireSavedSnippet): SavedSnippetsEvent {
    return { type: "saved_snippets", op: "update", saved_snippet: snippet };
  },
  remove(snippetId: number): SavedSnippetsEvent {
    return { type: "saved_snippets", op: "remove", saved_snippet_id: snippetId };
  },
};

export const draftEvents = {
  add(drafts: WireDraft[]): DraftsEvent {
    return { type: "drafts", op: "add", drafts };
  },
  update(draft: WireDraft): DraftsEvent {
    return { type: "drafts", op: "update", draft };
  },
  remove(draftId: number): DraftsEvent {
    return { type: "drafts", op: "remove", draft_id: draftId };
  },
};

export const scheduledMessageEvents = {
  add(scheduledMessage: WireScheduledMessage): ScheduledMessagesEvent {
    return { type: "scheduled_messages", op: "add", scheduled_messages: [scheduledMessage] };
  },
  update(scheduledMessage: WireScheduledMessage): ScheduledMessagesEvent {
    return { type: "scheduled_messages", op: "update", scheduled_message: scheduledMessage };
  },
  remove(scheduledMessageId: number): ScheduledMessagesEvent {
    return { type: "scheduled_messages", op: "remove", scheduled_message_id: scheduledMessageId };
  },
};

export const reminderEvents = {
  add(reminder: WireReminder): RemindersEvent {
    return { type: "reminders", op: "add", reminders: [reminder] };
  },
  remove(reminderId: number): RemindersEvent {
    return { type: "reminders", op: "remove", reminder_id: reminderId };
  },
};

export const deviceEvents = {
  add(deviceId: number): DeviceEvent {
    return { type: "device", op: "add", device_id: deviceId };
  },
  remove(deviceId: number): DeviceEvent {
    return { type: "device", op: "remove", device_id: deviceId };
  },
};

export function mutedUsersEvent(mutedUsers: Array<{ id: number; timestamp: number }>): MutedUsersEvent {
  return { type: "muted_users", muted_users: mutedUsers };
}

export function alertWordsEvent(words: string[]): AlertWordsEvent {
  return { type: "alert_words", alert_words: words };
}

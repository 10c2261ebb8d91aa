import { signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { follow } from "./follow.js";
import { client } from "../app.js";
import type { Message, ServerEvent } from "../api/types.js";
import { isMentioned } from "../model/narrow.js";
import { navigate } from "../router.js";
import { messageLink } from "./links.js";

/** The tab's title: the unread count first, so it shows in a tab bar full of tabs. */
export function useDocumentTitle(): void {
  const count = client.unread.count;
  follow(client.unread.version);
  const realm = client.world.realm.value.name;
  useEffect(() => {
    document.title = count > 0 ? `(${count}) ${realm} · chatd` : `${realm} · chatd`;
  }, [count, realm]);
}

/** Whether the browser may show notifications; "default" until the person answers the browser's question. */
export const notificationPermission = signal<NotificationPermission | "unsupported">(
  typeof Notification === "undefined" ? "unsupported" : Notification.permission,
);

/** Asks the browser (it only asks in answer to a click). */
export async function askForNotifications(): Promise<void> {
  if (typeof Notification === "undefined") return;
  notificationPermission.value = await Notification.requestPermission();
}

/** Would the person want a desktop notification of this message, by their settings (Zulip's rules, simplified)? */
export function wantsNotification(message: Message): boolean {
  if (message.sender_id === client.myUserId || client.world.mutedUsers.value.has(message.sender_id))
    return false;
  const settings = client.world.settings.value;
  if (message.type === "private") return settings.enable_desktop_notifications !== false;
  const streamId = message.stream_id!;
  if (client.world.isTopicMuted(streamId, message.subject)) return false;
  if (isMentioned(message.flags)) return settings.enable_desktop_notifications !== false;
  if (
    client.world.topicPolicy(streamId, message.subject) === 3 &&
    settings.enable_followed_topic_desktop_notifications
  )
    return true;
  const sub = client.world.subscriptions.value.get(streamId);
  return sub?.desktop_notifications ?? settings.enable_stream_desktop_notifications === true;
}

/** Text of a message's HTML, for a notification's body. */
function plainText(html: string): string {
  const doc = new DOMParser().parseFromString(html, "text/html");
  return (doc.body.textContent ?? "").trim();
}

/** Desktop notifications for direct messages and mentions while the tab is hidden. */
export function notifyOf(events: readonly ServerEvent[]): void {
  if (notificationPermission.value !== "granted" || document.visibilityState === "visible") return;
  for (const event of events) {
    if (event.type !== "message") continue;
    const message = { ...event.message, flags: event.flags };
    if (!wantsNotification(message)) continue;
    const where =
      message.type === "stream"
        ? `#${client.world.channelName(message.stream_id!) ?? ""} › ${message.subject}`
        : "Direct message";
    const showContent =
      message.type !== "private" || client.world.settings.value.pm_content_in_desktop_notifications !== false;
    const notification = new Notification(`${message.sender_full_name} (${where})`, {
      body: showContent ? plainText(message.content).slice(0, 300) : "New direct message",
      tag: String(message.id),
    });
    notification.onclick = () => {
      window.focus();
      navigate(messageLink(message));
      notification.close();
    };
  }
}

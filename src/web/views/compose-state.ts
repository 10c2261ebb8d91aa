import { effect, signal } from "@preact/signals";
import { client } from "../app.js";
import { rawContent, type Destination } from "../actions.js";
import type { Message } from "../api/types.js";
import { messageLink } from "./links.js";
import { composeTextarea } from "./focus.js";
import { showToast } from "./Toast.js";

/** Where the compose box sends: set by the view, a reply, or the person. */
export const composeTarget = signal<Destination | null>(null);
export const composeText = signal("");
/** The person chose the target themselves: a view change no longer resets it. */
export const targetChosen = signal(false);

const DRAFT_KEY = "chatd.compose-draft";

interface LocalDraft {
  target: Destination | null;
  text: string;
}

/** The unsent message survives a reload (kept in this browser; synced drafts go to the server too). */
function saveLocalDraft(): void {
  try {
    if (composeText.value.trim() === "") localStorage.removeItem(DRAFT_KEY);
    else
      localStorage.setItem(
        DRAFT_KEY,
        JSON.stringify({ target: composeTarget.value, text: composeText.value } satisfies LocalDraft),
      );
  } catch {
    // Storage may be full or forbidden: the draft then lives as long as the page.
  }
}

/**
 * Saves the draft whenever its text or target changes, at once (a signal effect runs in
 * the change itself): a reload right after a keystroke keeps it. Call once, after restoring.
 */
export function keepLocalDraft(): void {
  effect(() => saveLocalDraft());
}

export function restoreLocalDraft(): void {
  try {
    const saved = localStorage.getItem(DRAFT_KEY);
    if (!saved) return;
    const draft = JSON.parse(saved) as LocalDraft;
    composeText.value = draft.text;
    if (draft.target) {
      composeTarget.value = draft.target;
      targetChosen.value = true;
    }
  } catch {
    // A damaged draft is dropped.
  }
}

export function clearLocalDraft(): void {
  try {
    localStorage.removeItem(DRAFT_KEY);
  } catch {
    // Nothing to clear.
  }
}

/** The conversation a message is in, as a compose target (a reply). */
export function replyTarget(message: Message): Destination {
  if (message.type === "stream")
    return { kind: "stream", streamId: message.stream_id!, topic: message.subject };
  const ids = (message.display_recipient as Array<{ id: number }>)
    .map((r) => r.id)
    .filter((id) => id !== client.myUserId);
  return { kind: "dm", userIds: ids.length === 0 ? [client.myUserId] : ids };
}

export function replyTo(message: Message): void {
  composeTarget.value = replyTarget(message);
  targetChosen.value = true;
  composeTextarea.current?.focus();
}

/** Quote and reply: the message's Markdown, quoted under "@_**Name|id** [said](link):", as Zulip writes it. */
export async function quoteAndReply(message: Message): Promise<void> {
  replyTo(message);
  try {
    const source = await rawContent(message.id);
    const link = new URL(messageLink(message), location.href).href;
    const quote = `@_**${message.sender_full_name}|${message.sender_id}** [said](${link}):\n\`\`\`quote\n${source}\n\`\`\`\n`;
    composeText.value = composeText.value.trim() === "" ? quote : `${composeText.value}\n${quote}`;
    composeTextarea.current?.focus();
  } catch (err) {
    showToast(`Could not quote the message: ${(err as Error).message}`);
  }
}

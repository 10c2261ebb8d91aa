import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { client } from "../app.js";
import { deleteMessage, editMessage, rawContent, setFlag, toggleReaction } from "../actions.js";
import type { Message, Reaction } from "../api/types.js";
import { Avatar } from "./Avatar.js";
import { Emoji } from "./emoji.js";
import { EmojiPicker } from "./EmojiPicker.js";
import { Icon } from "./Icon.js";
import { fullDate, timeOfDay } from "./time.js";
import { enhanceContent, onContentClick, onContentKeyDown } from "./content.js";
import { quoteAndReply } from "./compose-state.js";
import { openProfile } from "./ProfileCard.js";
import { messageLink } from "./links.js";
import { showToast } from "./Toast.js";
import { UserStatus } from "./UserStatus.js";
import { noteMessageDrawn } from "../perf.js";

/** Reactions grouped by emoji, in the order each was first added. */
function groupReactions(reactions: readonly Reaction[]) {
  const groups = new Map<string, { emoji: Reaction; userIds: number[] }>();
  for (const r of reactions) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const group = groups.get(key);
    if (group) group.userIds.push(r.user_id);
    else groups.set(key, { emoji: r, userIds: [r.user_id] });
  }
  return [...groups.values()];
}

/** May the user still edit this message's content (their own, within the realm's limit)? */
function mayEdit(message: Message): boolean {
  const realm = client.world.realm.value;
  if (message.sender_id !== client.myUserId || !realm.allowMessageEditing) return false;
  const limit = realm.editLimitSecs;
  return limit === null || limit === 0 || Date.now() / 1000 - message.timestamp < limit;
}

function mayDelete(message: Message): boolean {
  if (client.world.isAdmin.value) return true;
  if (message.sender_id !== client.myUserId) return false;
  const limit = client.world.realm.value.deleteLimitSecs;
  return limit === null || limit === 0 || Date.now() / 1000 - message.timestamp < limit;
}

export function MessageItem({ id, continued }: { id: number; continued: boolean }) {
  const message = client.messages.get(id)?.value;
  const [editing, setEditing] = useState<string | null>(null);
  const [picker, setPicker] = useState(false);
  const [busy, setBusy] = useState(false);
  const [active, setActive] = useState(false);
  const content = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => noteMessageDrawn(id), []);
  useLayoutEffect(() => {
    if (content.current) enhanceContent(content.current);
  }, [message?.content, editing]);
  if (!message) return null;
  const twentyFour = client.world.settings.value.twenty_four_hour_time;
  const unread = client.unread.has(id);
  const starred = message.flags.includes("starred");
  const mentioned = message.flags.some((f) => f.includes("mentioned"));
  const sender = client.world.users.value.get(message.sender_id);
  const senderName = sender?.full_name ?? message.sender_full_name;
  const mutedSender = client.world.mutedUsers.value.has(message.sender_id);

  const startEdit = async () => {
    setBusy(true);
    try {
      setEditing(await rawContent(id));
    } finally {
      setBusy(false);
    }
  };
  const saveEdit = async (content: string) => {
    setBusy(true);
    try {
      await editMessage(id, { content });
      setEditing(null);
    } catch (err) {
      showToast(`Could not save the edit: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!confirm("Delete this message? This cannot be undone.")) return;
    try {
      await deleteMessage(id);
    } catch (err) {
      showToast(`Could not delete the message: ${(err as Error).message}`);
    }
  };
  const react = (emoji: { name: string; code: string; type: string }) => {
    setPicker(false);
    void toggleReaction(message, client.myUserId, emoji).catch((err: Error) => showToast(err.message));
  };

  return (
    <article
      class={`message${continued ? " continued" : ""}${mentioned ? " mentioned" : ""}${unread ? " unread" : ""}`}
      data-message-id={id}
      data-unread={unread ? "" : undefined}
      aria-labelledby={`msg-sender-${id}`}
      tabIndex={-1}
      onMouseEnter={() => setActive(true)}
      onMouseLeave={() => setActive(false)}
      onFocusIn={() => setActive(true)}
      onFocusOut={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setActive(false);
      }}
    >
      <div class="message-gutter">
        {!continued ? (
          <button
            type="button"
            class="avatar-button"
            aria-label={`Profile of ${senderName}`}
            onClick={() => openProfile(message.sender_id)}
          >
            <Avatar userId={message.sender_id} url={message.avatar_url} size={36} />
          </button>
        ) : (
          <time
            class="gutter-time"
            dateTime={new Date(message.timestamp * 1000).toISOString()}
            title={fullDate(message.timestamp, twentyFour)}
          >
            {timeOfDay(message.timestamp, twentyFour)}
          </time>
        )}
      </div>
      <div class="message-main">
        <div class={continued ? "message-meta visually-hidden" : "message-meta"}>
          <span class="sender" id={`msg-sender-${id}`}>
            {senderName}
          </span>
          <UserStatus status={client.world.statuses.value.get(message.sender_id)} emojiOnly />
          <a class="message-time" href={messageLink(message)} title={fullDate(message.timestamp, twentyFour)}>
            <time dateTime={new Date(message.timestamp * 1000).toISOString()}>
              {timeOfDay(message.timestamp, twentyFour)}
            </time>
          </a>
          {message.last_edit_timestamp !== undefined && <span class="edited">(edited)</span>}
          {message.last_edit_timestamp === undefined && message.last_moved_timestamp !== undefined && (
            <span class="edited">(moved)</span>
          )}
        </div>
        {editing !== null ? (
          <EditBox initial={editing} busy={busy} onSave={saveEdit} onCancel={() => setEditing(null)} />
        ) : mutedSender ? (
          <p class="muted-message">This message was hidden because you muted the sender.</p>
        ) : (
          // The server's sanitized rendering: the only HTML the app inserts as HTML.
          <div
            class="message-content rendered"
            ref={content}
            onClick={onContentClick}
            onKeyDown={onContentKeyDown}
            dangerouslySetInnerHTML={{ __html: message.content }}
          />
        )}
        {message.reactions.length > 0 && (
          <div class="reactions" role="group" aria-label="Reactions">
            {groupReactions(message.reactions).map(({ emoji, userIds }) => {
              const mine = userIds.includes(client.myUserId);
              const names = userIds
                .map((uid) =>
                  uid === client.myUserId ? "You" : (client.world.fullName(uid) ?? "Unknown user"),
                )
                .join(", ");
              return (
                <button
                  type="button"
                  key={`${emoji.reaction_type}:${emoji.emoji_code}`}
                  class={mine ? "reaction mine" : "reaction"}
                  aria-pressed={mine}
                  aria-label={`${emoji.emoji_name}: ${names}`}
                  title={`${names} reacted with :${emoji.emoji_name}:`}
                  onClick={() =>
                    react({ name: emoji.emoji_name, code: emoji.emoji_code, type: emoji.reaction_type })
                  }
                >
                  <Emoji emoji={emoji} size={16} />
                  <span class="reaction-count">{userIds.length}</span>
                </button>
              );
            })}
          </div>
        )}
      </div>
      {/* Drawn only for the message pointed at or focused: a toolbar per message was most of
          a long feed's memory. */}
      {(active || picker) && (
        <div class="message-actions" role="group" aria-label="Message actions">
          <button
            type="button"
            class="icon-button"
            aria-label="Add reaction"
            title="Add reaction"
            aria-expanded={picker}
            onClick={() => setPicker(!picker)}
          >
            <Icon name="smile" size={16} />
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label="Quote and reply"
            title="Quote and reply"
            onClick={() => void quoteAndReply(message)}
          >
            <Icon name="quote" size={16} />
          </button>
          {mayEdit(message) && (
            <button
              type="button"
              class="icon-button"
              aria-label="Edit"
              title="Edit"
              disabled={busy}
              onClick={() => void startEdit()}
            >
              <Icon name="edit" size={16} />
            </button>
          )}
          <button
            type="button"
            class={starred ? "icon-button starred" : "icon-button"}
            aria-label="Star"
            aria-pressed={starred}
            title={starred ? "Unstar" : "Star"}
            onClick={() =>
              void setFlag([id], "starred", !starred).catch((err: Error) => showToast(err.message))
            }
          >
            <Icon name="star" size={16} />
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label="Copy link to message"
            title="Copy link to message"
            onClick={() =>
              void navigator.clipboard
                ?.writeText(new URL(messageLink(message), location.href).href)
                .then(() => showToast("Link copied"))
            }
          >
            <Icon name="link" size={16} />
          </button>
          {mayDelete(message) && (
            <button
              type="button"
              class="icon-button danger"
              aria-label="Delete"
              title="Delete"
              onClick={() => void remove()}
            >
              <Icon name="trash" size={16} />
            </button>
          )}
        </div>
      )}
      {picker && <EmojiPicker onPick={react} onClose={() => setPicker(false)} />}
    </article>
  );
}

function EditBox({
  initial,
  busy,
  onSave,
  onCancel,
}: {
  initial: string;
  busy: boolean;
  onSave: (content: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [text, setText] = useState(initial);
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => field.current?.focus(), []);
  return (
    <form
      class="edit-box"
      onSubmit={(e) => {
        e.preventDefault();
        void onSave(text);
      }}
    >
      <textarea
        aria-label="Edit message"
        value={text}
        rows={Math.min(12, text.split("\n").length + 1)}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel();
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void onSave(text);
        }}
        ref={field}
      />
      <div class="edit-buttons">
        <button type="submit" class="primary" disabled={busy}>
          Save
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

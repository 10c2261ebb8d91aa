import { useEffect, useRef, useState } from "preact/hooks";
import { follow } from "./follow.js";
import { client, queue } from "../app.js";
import { renderPreview, sendMessage, sendTyping, uploadFile, type Destination } from "../actions.js";
import { api } from "../api/http.js";
import { narrowChannel, narrowDm, type Narrow } from "../model/narrow.js";
import { dmPlace, streamPlace } from "../model/typing.js";
import { dmKey } from "../model/narrow.js";
import { SuggestionList, useAutocomplete } from "./ComposeSuggestions.js";
import { Icon } from "./Icon.js";
import { composeTextarea } from "./focus.js";
import {
  clearLocalDraft,
  composeTarget,
  composeText,
  keepLocalDraft,
  restoreLocalDraft,
  targetChosen,
} from "./compose-state.js";
import { showToast } from "./Toast.js";
import { PeoplePicker } from "./PeoplePicker.js";

/** The compose box's target for a view: its channel and topic, or its conversation. */
export function defaultTarget(narrow: Narrow | null): Destination | null {
  if (!narrow) return null;
  const channel = narrowChannel(narrow);
  if (channel) return { kind: "stream", streamId: channel.streamId, topic: channel.topic ?? "" };
  const dm = narrowDm(narrow);
  if (dm) return { kind: "dm", userIds: dm };
  return null;
}

restoreLocalDraft();
keepLocalDraft();

interface Upload {
  id: number;
  name: string;
  progress: number;
}

let nextUploadId = 1;

export function Compose({ narrow }: { narrow: Narrow | null }) {
  const target = composeTarget.value;
  const text = composeText.value;
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const autocomplete = useAutocomplete();
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const typing = useRef<{
    place: string;
    sentAt: number;
    stopTimer?: ReturnType<typeof setTimeout>;
    to: Destination;
  } | null>(null);
  const settings = client.world.settings.value;
  const realm = client.world.realm.value;

  // A view's conversation becomes the target, unless the person chose one (a reply, a draft).
  useEffect(() => {
    if (!targetChosen.value || composeText.value.trim() === "") {
      composeTarget.value = defaultTarget(narrow) ?? composeTarget.value ?? firstChannel();
      targetChosen.value = false;
    }
  }, [narrow]);

  // With draft synchronization on, the unsent text is also a draft on the server (every client sees it).
  const draftId = useRef<number | null>(null);
  useEffect(() => {
    if (!settings.enable_drafts_synchronization || !target || text.trim() === "") return;
    const timer = setTimeout(() => {
      void syncDraft(draftId.current, target, text).then(
        (id) => (draftId.current = id),
        () => undefined,
      );
    }, 2000);
    return () => clearTimeout(timer);
  }, [text, target]);

  const firstChannel = (): Destination | null => {
    const sub = client.world.sidebarChannels.value[0];
    return sub ? { kind: "stream", streamId: sub.stream_id, topic: "" } : null;
  };

  const setTarget = (next: Destination | null) => {
    composeTarget.value = next;
    targetChosen.value = true;
  };

  const stopTyping = () => {
    const current = typing.current;
    if (!current) return;
    clearTimeout(current.stopTimer);
    typing.current = null;
    void sendTyping(current.to, "stop").catch(() => undefined);
  };

  const noteTyping = () => {
    if (!target || (target.kind === "stream" && target.topic.trim() === "")) return;
    const wanted =
      target.kind === "stream"
        ? settings.send_stream_typing_notifications
        : settings.send_private_typing_notifications;
    if (wanted === false) return;
    const place =
      target.kind === "stream" ? `s${target.streamId}:${target.topic}` : `d${target.userIds.join(",")}`;
    const now = Date.now();
    let current = typing.current;
    if (current && current.place !== place) {
      stopTyping();
      current = null;
    }
    if (!current || now - current.sentAt > realm.typingStartedWaitMs) {
      void sendTyping(target, "start").catch(() => undefined);
      current = { place, sentAt: now, to: target };
      typing.current = current;
    }
    clearTimeout(current.stopTimer);
    current.stopTimer = setTimeout(stopTyping, realm.typingStoppedWaitMs);
  };

  const send = async () => {
    const content = composeText.value.trim();
    if (content === "" || !target || sending) return;
    if (target.kind === "dm" && target.userIds.length === 0) {
      setError("Choose at least one person to send to.");
      return;
    }
    if (target.kind === "stream" && realm.mandatoryTopics && target.topic.trim() === "") {
      setError("Topics are required in this organization.");
      return;
    }
    setSending(true);
    setError(null);
    stopTyping();
    try {
      await sendMessage(target, content, queue.id, String(Date.now()));
      composeText.value = "";
      setPreview(null);
      clearLocalDraft();
      if (draftId.current !== null) {
        void api("DELETE", `/drafts/${draftId.current}`).catch(() => undefined);
        draftId.current = null;
      }
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (autocomplete.onKeyDown(e)) return;
    if (e.key === "Enter" && !e.isComposing) {
      // Zulip's enter_sends: on, Enter sends (Shift+Enter a new line); off, Enter is a new line. Ctrl+Enter always sends.
      if (e.ctrlKey || e.metaKey || (settings.enter_sends && !e.shiftKey && !e.altKey)) {
        e.preventDefault();
        void send();
      }
    }
    if (e.key === "Escape") (e.currentTarget as HTMLTextAreaElement).blur();
  };

  const insertAtCaret = (insert: string) => {
    const el = composeTextarea.current;
    const value = composeText.value;
    const at = el ? el.selectionStart : value.length;
    const glue = at > 0 && !/\s$/.test(value.slice(0, at)) ? " " : "";
    composeText.value = value.slice(0, at) + glue + insert + value.slice(at);
  };

  const startUploads = (files: Iterable<File>) => {
    for (const file of files) {
      if (file.size > realm.maxUploadMib * 1024 * 1024) {
        showToast(
          `${file.name} is larger than ${realm.maxUploadMib} MiB, the largest file this server takes.`,
        );
        continue;
      }
      const id = nextUploadId++;
      setUploads((list) => [...list, { id, name: file.name, progress: 0 }]);
      uploadFile(file, (progress) =>
        setUploads((list) => list.map((u) => (u.id === id ? { ...u, progress } : u))),
      )
        .then((answer) => insertAtCaret(`[${file.name.replace(/[[\]]/g, "")}](${answer.url})\n`))
        .catch((err: Error) => showToast(`Could not upload ${file.name}: ${err.message}`))
        .finally(() => setUploads((list) => list.filter((u) => u.id !== id)));
    }
  };

  const typists = composePlaceTypists(target);
  const suggesting = autocomplete.options.length > 0;

  return (
    <form
      class={`compose${dragging ? " dragging" : ""}`}
      aria-label="Compose message"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes("Files")) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        if (e.dataTransfer?.files.length) {
          e.preventDefault();
          startUploads(e.dataTransfer.files);
        }
      }}
    >
      {typists.length > 0 && (
        <p class="typing-notice" role="status">
          {typistsText(typists)}
        </p>
      )}
      <div class="compose-target">
        <div class="segmented" role="group" aria-label="Send to">
          <button
            type="button"
            aria-pressed={target?.kind !== "dm"}
            onClick={() => setTarget(firstChannelTarget(target))}
          >
            Channel
          </button>
          <button
            type="button"
            aria-pressed={target?.kind === "dm"}
            onClick={() => setTarget({ kind: "dm", userIds: target?.kind === "dm" ? target.userIds : [] })}
          >
            Direct message
          </button>
        </div>
        {target?.kind === "dm" ? (
          <PeoplePicker
            label="To"
            userIds={target.userIds}
            onChange={(userIds) => setTarget({ kind: "dm", userIds })}
          />
        ) : (
          <>
            <select
              aria-label="Channel"
              value={target?.kind === "stream" ? String(target.streamId) : ""}
              onChange={(e) =>
                setTarget({
                  kind: "stream",
                  streamId: Number(e.currentTarget.value),
                  topic: target?.kind === "stream" ? target.topic : "",
                })
              }
            >
              {client.world.sidebarChannels.value.map((sub) => (
                <option key={sub.stream_id} value={String(sub.stream_id)}>
                  #{sub.name}
                </option>
              ))}
            </select>
            <span aria-hidden="true" class="recipient-sep">
              ›
            </span>
            <input
              class="topic-input"
              aria-label="Topic"
              placeholder={realm.mandatoryTopics ? "Topic" : `Topic (or ${realm.emptyTopicName})`}
              list="compose-topics"
              maxLength={60}
              value={target?.kind === "stream" ? target.topic : ""}
              onInput={(e) =>
                target?.kind === "stream" && setTarget({ ...target, topic: e.currentTarget.value })
              }
            />
            <datalist id="compose-topics">
              {target?.kind === "stream" &&
                client.topics
                  .forChannel(target.streamId)
                  .slice(0, 30)
                  .map((t) => <option key={t.name} value={t.name} />)}
            </datalist>
          </>
        )}
      </div>
      <div class="compose-body">
        {preview !== null ? (
          <div
            class="message-content rendered preview"
            aria-label="Preview"
            role="region"
            dangerouslySetInnerHTML={{ __html: preview }}
          />
        ) : (
          <textarea
            ref={composeTextarea}
            aria-label="Message"
            placeholder={placeholder(target)}
            rows={3}
            value={text}
            onInput={(e) => {
              composeText.value = e.currentTarget.value;
              autocomplete.refresh(e.currentTarget);
              noteTyping();
            }}
            onClick={(e) => autocomplete.refresh(e.currentTarget)}
            onKeyDown={onKeyDown}
            onBlur={(e) => {
              // Suggestions close when focus has left the box for good: focus that comes back
              // at once (a view change, a click on the sidebar) and typing go on completing.
              const box = e.currentTarget;
              setTimeout(() => {
                if (document.activeElement !== box) autocomplete.dismiss();
              }, 150);
            }}
            onPaste={(e) => {
              const files = [...(e.clipboardData?.files ?? [])];
              if (files.length > 0) {
                e.preventDefault();
                startUploads(files);
              }
            }}
            aria-autocomplete="list"
            aria-controls={suggesting ? "compose-suggestions" : undefined}
            aria-activedescendant={suggesting ? `compose-suggestion-${autocomplete.selected}` : undefined}
          />
        )}
        {preview === null && <SuggestionList autocomplete={autocomplete} />}
      </div>
      {uploads.map((u) => (
        <div class="upload-progress" key={u.id}>
          <span>Uploading {u.name}…</span>
          <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />
        </div>
      ))}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="compose-buttons">
        <label class="icon-button file-button" title="Upload files">
          <Icon name="paperclip" />
          <input
            ref={fileInput}
            type="file"
            multiple
            aria-label="Upload files"
            class="visually-hidden"
            onChange={(e) => {
              startUploads([...(e.currentTarget.files ?? [])]);
              e.currentTarget.value = "";
            }}
          />
        </label>
        <button
          type="button"
          class="icon-button"
          aria-label={preview === null ? "Preview" : "Write"}
          aria-pressed={preview !== null}
          title={preview === null ? "Preview" : "Back to writing"}
          onClick={() => {
            if (preview !== null) setPreview(null);
            else void renderPreview(text).then(setPreview, (err: Error) => setError(err.message));
          }}
        >
          <Icon name="eye" />
        </button>
        <span class="compose-hint">
          {settings.enter_sends ? "Enter to send, Shift+Enter for a new line" : "Ctrl+Enter to send"}
        </span>
        <button type="submit" class="primary send-button" disabled={sending || text.trim() === "" || !target}>
          <Icon name="send" size={16} /> Send
        </button>
      </div>
    </form>
  );
}

function firstChannelTarget(target: Destination | null): Destination | null {
  if (target?.kind === "stream") return target;
  const sub = client.world.sidebarChannels.value[0];
  return sub ? { kind: "stream", streamId: sub.stream_id, topic: "" } : null;
}

function placeholder(target: Destination | null): string {
  if (!target) return "Message";
  if (target.kind === "stream") {
    const name = client.world.channelName(target.streamId) ?? "";
    return target.topic ? `Message #${name} › ${target.topic}` : `Message #${name}`;
  }
  if (target.userIds.length === 0) return "Message";
  return `Message ${target.userIds.map((id) => client.world.fullName(id) ?? "someone").join(", ")}`;
}

function composePlaceTypists(target: Destination | null): number[] {
  follow(client.typing.typists);
  if (!target) return [];
  const place =
    target.kind === "stream"
      ? streamPlace(target.streamId, target.topic)
      : dmPlace(dmKey(target.userIds, client.myUserId));
  return client.typing.who(place);
}

function typistsText(userIds: number[]): string {
  const names = userIds.map((id) => client.world.fullName(id) ?? "Someone");
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return "Several people are typing…";
}

/** Drafts synced to the server (enable_drafts_synchronization): the compose text, saved as one draft. */
export async function syncDraft(
  draftId: number | null,
  target: Destination,
  content: string,
): Promise<number | null> {
  const draft = {
    type: target.kind === "stream" ? "stream" : "private",
    to: target.kind === "stream" ? [target.streamId] : target.userIds,
    topic: target.kind === "stream" ? target.topic : "",
    content,
    timestamp: Math.floor(Date.now() / 1000),
  };
  if (draftId === null) {
    const answer = await api<{ ids: number[] }>("POST", "/drafts", { drafts: [draft] });
    return answer.ids[0] ?? null;
  }
  await api("PATCH", `/drafts/${draftId}`, { draft });
  return draftId;
}

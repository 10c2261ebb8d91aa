import { signal } from "@preact/signals";
import { useState } from "preact/hooks";
import { client } from "../app.js";
import { setStatus } from "../actions.js";
import { Emoji } from "./emoji.js";
import { EmojiPicker, type PickedEmoji } from "./EmojiPicker.js";
import { Modal } from "./Modal.js";
import { showToast } from "./Toast.js";

const open = signal(false);

export function openStatusDialog(): void {
  open.value = true;
}

const SUGGESTED = [
  { text: "In a meeting", emoji: { name: "calendar", code: "1f4c6", type: "unicode_emoji" } },
  { text: "Commuting", emoji: { name: "bus", code: "1f68c", type: "unicode_emoji" } },
  { text: "Out sick", emoji: { name: "sick", code: "1f912", type: "unicode_emoji" } },
  { text: "Vacationing", emoji: { name: "palm_tree", code: "1f334", type: "unicode_emoji" } },
  { text: "Working remotely", emoji: { name: "house", code: "1f3e0", type: "unicode_emoji" } },
];

/** Set one's status: a text and an emoji, shown beside one's name everywhere. */
export function StatusDialog() {
  if (!open.value) return null;
  return <StatusForm />;
}

function StatusForm() {
  const current = client.world.statuses.value.get(client.myUserId);
  const [text, setText] = useState(current?.status_text ?? "");
  const [emoji, setEmoji] = useState<PickedEmoji | null>(
    current?.emoji_name
      ? {
          name: current.emoji_name,
          code: current.emoji_code ?? "",
          type: current.reaction_type ?? "unicode_emoji",
        }
      : null,
  );
  const [picking, setPicking] = useState(false);
  const close = () => (open.value = false);
  const save = async (status: { text: string; emoji: PickedEmoji | null }) => {
    try {
      await setStatus({
        status_text: status.text,
        emoji_name: status.emoji?.name ?? "",
        ...(status.emoji ? { emoji_code: status.emoji.code, reaction_type: status.emoji.type } : {}),
      });
      close();
    } catch (err) {
      showToast(`Could not set your status: ${(err as Error).message}`);
    }
  };
  return (
    <Modal title="Set status" onClose={close}>
      <form
        class="form status-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save({ text, emoji });
        }}
      >
        <div class="status-row">
          <button
            type="button"
            class="emoji-button"
            aria-label={emoji ? `Status emoji: ${emoji.name}` : "Choose status emoji"}
            onClick={() => setPicking(!picking)}
          >
            {emoji ? (
              <Emoji emoji={{ emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type }} />
            ) : (
              "🙂"
            )}
          </button>
          <label class="visually-hidden" for="status-text">
            Status text
          </label>
          <input
            id="status-text"
            maxLength={60}
            value={text}
            placeholder="What's your status?"
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </div>
        {picking && (
          <EmojiPicker
            onPick={(picked) => {
              setEmoji(picked);
              setPicking(false);
            }}
            onClose={() => setPicking(false)}
          />
        )}
        <ul class="status-suggestions">
          {SUGGESTED.map((s) => (
            <li key={s.text}>
              <button
                type="button"
                class="text-button"
                onClick={() => {
                  setText(s.text);
                  setEmoji(s.emoji);
                }}
              >
                <Emoji
                  emoji={{ emoji_name: s.emoji.name, emoji_code: s.emoji.code, reaction_type: s.emoji.type }}
                  size={16}
                />{" "}
                {s.text}
              </button>
            </li>
          ))}
        </ul>
        <div class="form-buttons">
          <button type="submit" class="primary">
            Save status
          </button>
          <button type="button" onClick={() => void save({ text: "", emoji: null })}>
            Clear status
          </button>
        </div>
      </form>
    </Modal>
  );
}

import { useEffect, useRef, useState } from "preact/hooks";
import { client } from "../app.js";
import { emojiChar, emojiTable } from "./emoji.js";

export interface PickedEmoji {
  name: string;
  code: string;
  type: string;
}

/** Shown before anything is typed: the emoji people react with most (Zulip's popular set). */
const POPULAR = [
  "+1",
  "tada",
  "smile",
  "heart",
  "working_on_it",
  "octopus",
  "check",
  "joy",
  "thinking",
  "eyes",
  "pray",
  "rocket",
];

/** A dialog to find an emoji by name: the search box first, Enter picks the first result. */
export function EmojiPicker({
  onPick,
  onClose,
}: {
  onPick: (emoji: PickedEmoji) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState("");
  const [names, setNames] = useState<Array<{ name: string; code: string }>>([]);
  const [failed, setFailed] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const dialog = useRef<HTMLDivElement>(null);

  useEffect(() => {
    input.current?.focus();
    const url = client.world.realm.value.serverEmojiDataUrl;
    if (url)
      void emojiTable(url).then(
        (table) => setNames(table.names),
        () => setFailed(true),
      );
    const onDown = (e: MouseEvent) => {
      if (!dialog.current?.contains(e.target as Node)) onClose();
    };
    setTimeout(() => document.addEventListener("mousedown", onDown), 0);
    return () => document.removeEventListener("mousedown", onDown);
  }, []);

  const q = query.trim().toLowerCase().replace(/^:|:$/g, "");
  const custom = [...client.world.customEmoji.value.values()]
    .filter((e) => q === "" || e.name.includes(q))
    .map((e) => ({ name: e.name, code: String(e.id), type: "realm_emoji", src: e.source_url }));
  const unicode = (
    q === ""
      ? POPULAR.map((name) => names.find((n) => n.name === name)).filter(
          (n): n is { name: string; code: string } => n !== undefined,
        )
      : names
          .filter((n) => n.name.startsWith(q) || n.name.includes(`_${q}`))
          .concat(
            names.filter((n) => !n.name.startsWith(q) && !n.name.includes(`_${q}`) && n.name.includes(q)),
          )
  )
    .slice(0, 80)
    .map((n) => ({ ...n, type: "unicode_emoji", src: undefined as string | undefined }));
  const results = [...custom, ...unicode];

  return (
    <div
      class="emoji-picker"
      role="dialog"
      aria-label="Emoji picker"
      ref={dialog}
      onKeyDown={(e) => e.key === "Escape" && onClose()}
    >
      <input
        ref={input}
        type="search"
        role="searchbox"
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            const first = results[0];
            if (first) onPick(first);
          }
        }}
      />
      {failed && <p class="form-error">The emoji list could not be loaded.</p>}
      <div class="emoji-grid" role="group" aria-label="Emoji">
        {results.map((emoji) => (
          <button
            type="button"
            key={`${emoji.type}:${emoji.name}`}
            class="emoji-choice"
            aria-label={emoji.name}
            title={`:${emoji.name}:`}
            onClick={() => onPick(emoji)}
          >
            {emoji.src ? <img src={emoji.src} alt="" width={22} height={22} /> : emojiChar(emoji.code)}
          </button>
        ))}
        {results.length === 0 && names.length > 0 && <p class="empty">No emoji match “{query}”.</p>}
      </div>
    </div>
  );
}

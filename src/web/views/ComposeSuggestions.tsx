import { useState } from "preact/hooks";
import { client } from "../app.js";
import { suggestions, tokenAt, type Suggestion, type Token } from "./autocomplete.js";
import { composeText } from "./compose-state.js";
import { Emoji, emojiTable } from "./emoji.js";
import { composeTextarea } from "./focus.js";

type EmojiNames = Array<{ name: string; code: string }>;

export interface Autocomplete {
  options: Suggestion[];
  selected: number;
  /** The caret moved or the text changed: look for a token to complete. */
  refresh: (el: HTMLTextAreaElement) => void;
  dismiss: () => void;
  accept: (choice: Suggestion) => void;
  /** Arrows, Enter, Tab and Escape while suggestions show; true when the key was used. */
  onKeyDown: (e: KeyboardEvent) => boolean;
}

/**
 * Completion of @-mentions, #channels, #**channel>topic** and :emoji: in the compose box.
 * The options are worked out at each render, so a channel's topics or the emoji table
 * that arrive after the token was typed show at once.
 */
export function useAutocomplete(): Autocomplete {
  const [token, setToken] = useState<Token | null>(null);
  const [selected, setSelected] = useState(0);
  const [emojiNames, setEmojiNames] = useState<EmojiNames>([]);

  const topics = token?.kind === "topic" ? client.topics.forChannel(token.streamId!) : [];
  const options = token ? suggestions(token, emojiNames, topics) : [];

  const refresh = (el: HTMLTextAreaElement) => {
    const found = tokenAt(el.value, el.selectionStart);
    setToken(found);
    setSelected(0);
    const url = client.world.realm.value.serverEmojiDataUrl;
    if (found?.kind === "emoji" && emojiNames.length === 0 && url) {
      void emojiTable(url).then(
        (table) => setEmojiNames(table.names),
        () => undefined,
      );
    }
  };

  const accept = (choice: Suggestion) => {
    const el = composeTextarea.current;
    if (!el || !token) return;
    const before = el.value.slice(0, token.start);
    const after = el.value.slice(el.selectionStart);
    const text = before + choice.insert + after;
    composeText.value = text;
    setToken(null);
    // The box's text and caret change at once, not at the next render or frame: a key typed
    // in between would otherwise land before the caret is moved, in the middle of the text.
    el.value = text;
    const caret = before.length + choice.insert.length;
    el.setSelectionRange(caret, caret);
    el.focus();
  };

  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (options.length === 0 || e.isComposing) return false;
    switch (e.key) {
      case "ArrowDown":
        setSelected((selected + 1) % options.length);
        break;
      case "ArrowUp":
        setSelected((selected + options.length - 1) % options.length);
        break;
      case "Enter":
      case "Tab":
        accept(options[Math.min(selected, options.length - 1)]!);
        break;
      case "Escape":
        setToken(null);
        break;
      default:
        return false;
    }
    e.preventDefault();
    return true;
  };

  return { options, selected, refresh, dismiss: () => setToken(null), accept, onKeyDown };
}

/** The suggestions under the compose box's caret: a listbox, chosen by keyboard or mouse. */
export function SuggestionList({ autocomplete }: { autocomplete: Autocomplete }) {
  const { options, selected, accept } = autocomplete;
  if (options.length === 0) return null;
  return (
    <ul class="suggestions" id="compose-suggestions" role="listbox" aria-label="Suggestions">
      {options.map((option, i) => (
        <li
          key={option.key}
          id={`compose-suggestion-${i}`}
          role="option"
          aria-selected={i === selected}
          onMouseDown={(e) => {
            e.preventDefault();
            accept(option);
          }}
        >
          {option.emoji && (
            <Emoji
              emoji={{
                emoji_name: option.emoji.name,
                emoji_code: option.emoji.code,
                reaction_type: option.emoji.type,
              }}
              size={18}
            />
          )}
          <span class="suggestion-label">{option.label}</span>
          {option.detail && <span class="suggestion-detail">{option.detail}</span>}
        </li>
      ))}
    </ul>
  );
}

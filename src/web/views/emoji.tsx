import { client } from "../app.js";
import type { WireEmoji } from "../api/types.js";

/** A Unicode emoji's character from Zulip's code ("1f44d", "1f468-200d-1f4bb"). */
export function emojiChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split("-").map((hex) => parseInt(hex, 16)));
  } catch {
    return "";
  }
}

/** An emoji as reactions and statuses name it: the character, or a custom emoji's image. */
export function Emoji({
  emoji,
  size = 20,
}: {
  emoji: Pick<WireEmoji, "emoji_name" | "emoji_code" | "reaction_type">;
  size?: number;
}) {
  if (emoji.reaction_type === "realm_emoji") {
    const custom = client.world.customEmoji.value.get(emoji.emoji_name);
    const src = custom?.source_url ?? `/user_avatars/${emoji.emoji_code}`;
    return <img class="emoji" src={src} alt={`:${emoji.emoji_name}:`} width={size} height={size} />;
  }
  if (emoji.reaction_type === "unicode_emoji") {
    return (
      <span class="emoji" role="img" aria-label={emoji.emoji_name}>
        {emojiChar(emoji.emoji_code)}
      </span>
    );
  }
  return <span class="emoji">:{emoji.emoji_name}:</span>;
}

interface EmojiTable {
  /** Every name with its code, Zulip's order (the most used first). */
  names: Array<{ name: string; code: string }>;
}

let table: Promise<EmojiTable> | null = null;

/** Zulip's emoji names (server_emoji_data_url), fetched once on first use. */
export function emojiTable(url: string): Promise<EmojiTable> {
  // Register names it under the server's public URL; this page may be on another name for the
  // same server (its address on the local network): the path is what matters.
  const { pathname, search } = new URL(url, location.href);
  table ??= fetch(pathname + search, { credentials: "same-origin" })
    .then((res) => res.json() as Promise<{ code_to_names: Record<string, string[]> }>)
    .then((data) => ({
      names: Object.entries(data.code_to_names).flatMap(([code, names]) =>
        names.map((name) => ({ name, code })),
      ),
    }))
    .catch((err: unknown) => {
      table = null;
      throw err;
    });
  return table;
}

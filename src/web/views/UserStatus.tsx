import type { UserStatus as Status } from "../api/types.js";
import { Emoji } from "./emoji.js";

/** A person's status beside their name: its emoji and its text (nothing when they set none). */
export function UserStatus({
  status,
  id,
  emojiOnly = false,
}: {
  status: Status | undefined;
  id?: string;
  /** Beside a message's sender, as Zulip shows it: the emoji alone. */
  emojiOnly?: boolean;
}) {
  if (!status?.emoji_name && (emojiOnly || !status?.status_text)) return null;
  return (
    <span class="user-status" id={id}>
      {status.emoji_name && (
        <Emoji
          emoji={{
            emoji_name: status.emoji_name,
            emoji_code: status.emoji_code ?? "",
            reaction_type: status.reaction_type ?? "unicode_emoji",
          }}
          size={14}
        />
      )}
      {!emojiOnly && status.status_text && <span class="user-status-text">{status.status_text}</span>}
    </span>
  );
}

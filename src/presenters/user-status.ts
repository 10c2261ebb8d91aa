export interface UserStatusRow {
  user_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/**
 * A user's status as Zulip's format_user_status shows it: only what is set, and `away`
 * (the deprecated alias of presence_enabled = false) only when true.
 */
export function presentUserStatus(row: UserStatusRow, presenceEnabled: boolean): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  if (!presenceEnabled) status.away = true;
  if (row.status_text) status.status_text = row.status_text;
  if (row.emoji_name) {
    status.emoji_name = row.emoji_name;
    status.emoji_code = row.emoji_code;
    status.reaction_type = row.reaction_type;
  }
  return status;
}

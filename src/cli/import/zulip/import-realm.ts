import type { Config } from "../../../config.js";

/** Where an import stands, for a progress bar or plain lines. */
export interface ImportProgress {
  stage: string;
  done: number;
  /** Null when the total is not known in advance. */
  total: number | null;
}

/** What an import brought in, printed by the CLI (and as JSON with --json). */
export interface ImportSummary {
  realm: { id: number; name: string; string_id: string };
  users: number;
  bots: number;
  channels: number;
  messages: number;
  reactions: number;
  uploads: number;
  emoji: number;
}

export interface ImportZulipOptions {
  /** An unpacked Zulip export directory (realm.json, messages-*.json, uploads/…). */
  dir: string;
  /** The empty data directory the organization is created in. */
  dataDir: string;
  config: Config;
  onProgress?: (p: ImportProgress) => void;
}

/**
 * Creates an organization from a Zulip-format export, keeping its ids, in an empty
 * data directory (or empty PostgreSQL database).
 */
export async function importZulipExport(opts: ImportZulipOptions): Promise<ImportSummary> {
  void opts;
  return Promise.reject(new Error("not implemented yet"));
}

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

/**
 * Zulip's Unicode emoji names (src/render/emoji-data/README.md): the generated table,
 * read from the package on first use so that an idle server does not hold it.
 */
const TABLE_FILE = new URL("../../../src/render/emoji-data/zulip-emoji-names.json", import.meta.url);

interface UnicodeTable {
  /** Every name, canonical or alias, to its code. */
  nameToCode: Map<string, string>;
  /** Every code to its canonical name. */
  codeToName: Map<string, string>;
}

let table: UnicodeTable | null = null;

function unicodeTable(): UnicodeTable {
  if (table) return table;
  const { code_to_names } = JSON.parse(emojiDataFile().body.toString("utf8")) as {
    code_to_names: Record<string, string[]>;
  };
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  for (const [code, names] of Object.entries(code_to_names)) {
    codeToName.set(code, names[0]!);
    for (const name of names) nameToCode.set(name, code);
  }
  table = { nameToCode, codeToName };
  return table;
}

export const unicodeEmojiCode = (name: string): string | undefined => unicodeTable().nameToCode.get(name);
/** The canonical name of a code; undefined for codes Zulip does not have (with fe0f, skin tones). */
export const unicodeEmojiName = (code: string): string | undefined => unicodeTable().codeToName.get(code);

/** What `server_emoji_data_url` serves: the table file as committed, and gzipped. */
export interface EmojiDataFile {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  /** A hash of the body: the URL's version and the ETag. */
  readonly version: string;
}

let dataFile: EmojiDataFile | null = null;

export function emojiDataFile(): EmojiDataFile {
  if (dataFile) return dataFile;
  const body = readFileSync(TABLE_FILE);
  const version = createHash("sha256").update(body).digest("hex").slice(0, 16);
  dataFile = { body, gzipped: gzipSync(body), version };
  return dataFile;
}

/** Where Zulip's development server has it; production adds a hash, here the query does. */
export const EMOJI_DATA_PATH = "/static/generated/emoji/emoji_api.json";

/** The absolute URL clients fetch the table from (they do not resolve it against the realm). */
export const emojiDataUrl = (realmUrl: string) =>
  `${realmUrl}${EMOJI_DATA_PATH}?v=${emojiDataFile().version}`;

/**
 * Builds src/render/emoji-data/zulip-emoji-names.json: Zulip's Unicode emoji name table
 * (emoji code -> [canonical name, ...aliases]), the names Zulip's clients send for
 * reactions, status emoji and `:name:` in messages.
 *
 * Inputs, all pinned in package.json:
 * - emoji-datasource's emoji.json: which emoji exist, in code order;
 * - CLDR's English annotations (cldr-annotations-full, with cldr-annotations-derived-full
 *   over it): a spoken name and keywords for every emoji;
 * - src/render/emoji-data/zulip-custom-emoji-names.json: Zulip's hand-picked names, which
 *   replace CLDR's (its `source` says where in zulip/zulip it was taken from).
 *
 * The naming rules reproduce Zulip's tools/setup/emoji/generate_emoji_names; chatd's own
 * implementation of them (described in src/render/emoji-data/README.md).
 *
 * Run with `npm run generate:emoji`; test/unit/emoji-names.test.ts checks that the
 * committed table is exactly what this produces.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const ROOT = new URL("../../", import.meta.url);
export const TABLE_FILE = new URL("src/render/emoji-data/zulip-emoji-names.json", ROOT);
const CUSTOM_FILE = new URL("src/render/emoji-data/zulip-custom-emoji-names.json", ROOT);

/** Emoji code -> names; custom names are looked up only, so a record will do. */
export type NameTable = Record<string, string[]>;
/** The output keeps emoji.json's order, which an object with numeric-looking keys would not. */
export type NameList = Array<[code: string, names: string[]]>;

interface EmojiRecord {
  unified: string;
}
interface CldrEntry {
  default?: string[];
  tts?: string[];
}
interface CldrFile {
  annotations?: { annotations: Record<string, CldrEntry> };
  annotationsDerived?: { annotations: Record<string, CldrEntry> };
}

export interface Inputs {
  emoji: EmojiRecord[];
  cldr: Record<string, CldrEntry>;
  custom: NameTable;
}

/** The npm packages and the override file, as installed. */
export function loadInputs(): Inputs {
  const require = createRequire(import.meta.url);
  const resolve = (id: string) => {
    try {
      return require.resolve(id);
    } catch {
      throw new Error(`${id} is not installed: run npm install (it is a devDependency)`);
    }
  };
  const json = <T>(id: string): T => JSON.parse(readFileSync(resolve(id), "utf8")) as T;
  const base = json<CldrFile>("cldr-annotations-full/annotations/en/annotations.json");
  const derived = json<CldrFile>("cldr-annotations-derived-full/annotationsDerived/en/annotations.json");
  const custom = JSON.parse(readFileSync(CUSTOM_FILE, "utf8")) as { code_to_names: NameTable };
  return {
    emoji: json<EmojiRecord[]>("emoji-datasource/emoji.json"),
    // The derived file (sequences, skin tones) wins where both have an entry.
    cldr: { ...base.annotations?.annotations, ...derived.annotationsDerived?.annotations },
    custom: custom.code_to_names,
  };
}

/** Zulip's codes: the code points without U+FE0F, lower-case hex, at least 4 digits. */
export const emojiCode = (unified: string) =>
  unified
    .split("-")
    .filter((part) => part.toUpperCase() !== "FE0F")
    .map((part) => part.toLowerCase().padStart(4, "0"))
    .join("-");

const codeToText = (code: string) =>
  String.fromCodePoint(...code.split("-").map((part) => Number.parseInt(part, 16)));

/** Skin-tone modifiers are not emoji of their own. */
const isSkinTone = (code: string) => /^1f3f[b-f]$/.test(code);
/** Of the 24 clock faces Zulip keeps one, 1f557 (`time`). */
const isDroppedClock = (code: string) => /^1f55[0-9a-f]$|^1f56[0-7]$/.test(code) && code !== "1f557";

/** A CLDR phrase as a name: "thumbs up" -> thumbs_up, "Côte d’Ivoire" -> côte_divoire. */
export function cleanName(phrase: string): string {
  return phrase
    .replace(/[ \-–]/g, "_")
    .replace(/[“”‘’':.,()]/g, "")
    .replace(/&/g, "and")
    .replace(/_+/g, "_")
    .toLowerCase();
}

/** Letters in CLDR's names and the ASCII letters Zulip adds aliases with. */
const ASCII_LETTERS: Readonly<Record<string, string>> = {
  è: "e",
  ǐ: "i",
  ó: "o",
  ā: "a",
  ō: "o",
  ñ: "n",
  ô: "o",
  ç: "c",
  é: "e",
  ã: "a",
  í: "i",
  å: "a",
  ü: "u",
};
const asciiName = (name: string) => name.replace(/[^\u0000-\u007f]/g, (c) => ASCII_LETTERS[c] ?? c); // eslint-disable-line no-control-regex
const isAscii = (name: string) => /^[\u0000-\u007f]*$/.test(name); // eslint-disable-line no-control-regex

/** Applies Zulip's naming rules; the result keeps emoji.json's order. */
export function buildEmojiNameTable(inputs: Inputs): NameList {
  const entries: Array<{ code: string; names: string[]; custom: boolean }> = [];
  for (const record of inputs.emoji) {
    const code = emojiCode(record.unified);
    if (isSkinTone(code) || isDroppedClock(code)) continue;
    const custom = inputs.custom[code];
    if (custom) {
      entries.push({ code, names: [...custom], custom: true });
      continue;
    }
    const cldr = inputs.cldr[codeToText(code)];
    const spoken = cldr?.tts?.[0];
    if (spoken === undefined) continue; // no name to give it
    entries.push({
      code,
      names: [cleanName(spoken), ...(cldr?.default ?? []).map(cleanName)],
      custom: false,
    });
  }

  // Hand-picked names keep their spelling (jack-o-lantern); they are compared cleaned.
  const seen = new Set<string>();
  for (const { code, names } of entries) {
    const name = cleanName(names[0]!);
    if (seen.has(name)) throw new Error(`two emoji are named ${name} (the second is ${code})`);
    seen.add(name);
  }
  const canonical = new Set(entries.map((entry) => entry.names[0]!));

  // An alias may not shadow a canonical name; one claimed by several emoji stays only
  // with those whose names Zulip chose by hand.
  const claims = new Map<string, number>();
  for (const entry of entries) {
    entry.names = [entry.names[0]!, ...new Set(entry.names.slice(1).filter((n) => !canonical.has(n)))];
    for (const alias of entry.names.slice(1)) claims.set(alias, (claims.get(alias) ?? 0) + 1);
  }
  for (const entry of entries) {
    if (entry.custom) continue;
    entry.names = entry.names.filter((name, i) => i === 0 || claims.get(name) === 1);
  }

  // Every name with accented letters gets an ASCII alias, which no other emoji keeps.
  for (const entry of entries) {
    for (const name of entry.names.filter((n) => !isAscii(n))) {
      const plain = asciiName(name);
      if (!isAscii(plain) || entry.names.includes(plain)) continue;
      for (const other of entries) other.names = other.names.filter((n, i) => i === 0 || n !== plain);
      entry.names.push(plain);
    }
  }
  return entries.map((entry) => [entry.code, entry.names]);
}

/** The file as committed: one emoji per line, so a regenerated table diffs well. */
export function serializeTable(table: NameList): string {
  const lines = table.map(([code, names]) => `    ${JSON.stringify(code)}: ${JSON.stringify(names)}`);
  return `{\n  "code_to_names": {\n${lines.join(",\n")}\n  }\n}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const table = buildEmojiNameTable(loadInputs());
  writeFileSync(TABLE_FILE, serializeTable(table));
  const names = table.reduce((n, [, list]) => n + list.length, 0);
  process.stdout.write(`${fileURLToPath(TABLE_FILE)}: ${table.length} emoji, ${names} names\n`);
}

/**
 * Builds src/cli/import/slack/slack-emoji-codes.json: Slack's emoji names (iamcal's
 * emoji-data short names, which Slack uses) -> the emoji's code, written the way Zulip's
 * codes are (without U+FE0F, lower case). The Slack importer turns a reaction's Slack name
 * into this code and then into Zulip's canonical name for the code, as Zulip's own
 * zerver/data_import/slack.py does with emoji-datasource-google.
 *
 * Run with `npm run build && node dist/tools/generate-slack-emoji-names.js`;
 * test/unit/slack-emoji.test.ts checks the committed file is exactly what this produces.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const ROOT = new URL("../../", import.meta.url);
export const SLACK_EMOJI_FILE = new URL("src/cli/import/slack/slack-emoji-codes.json", ROOT);

interface IamcalRecord {
  unified: string;
  non_qualified?: string | null;
  short_name: string;
  short_names: string[];
}

/** Zulip's get_emoji_code, in chatd's spelling of codes (no FE0F, lower case). */
const codeOf = (r: IamcalRecord) =>
  (r.non_qualified ?? r.unified)
    .toLowerCase()
    .split("-")
    .filter((part) => part !== "fe0f")
    .join("-");

export function buildSlackEmojiCodes(records: IamcalRecord[]): string {
  const byName = new Map<string, string>();
  for (const r of records) {
    const code = codeOf(r);
    byName.set(r.short_name, code);
    for (const name of r.short_names) if (!byName.has(name)) byName.set(name, code);
  }
  const sorted = [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = sorted.map(([name, code]) => `    ${JSON.stringify(name)}: ${JSON.stringify(code)}`);
  return `{\n  "source": "emoji-datasource (iamcal/emoji-data) short names, as Slack names emoji",\n  "code_by_name": {\n${lines.join(",\n")}\n  }\n}\n`;
}

export function loadIamcal(): IamcalRecord[] {
  const require = createRequire(import.meta.url);
  return JSON.parse(readFileSync(require.resolve("emoji-datasource/emoji.json"), "utf8")) as IamcalRecord[];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SLACK_EMOJI_FILE, buildSlackEmojiCodes(loadIamcal()));
}

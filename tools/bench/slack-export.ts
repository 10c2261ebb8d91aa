/**
 * Writes a Slack export zip of N filler messages (default 100,000) beside the tests' fixed
 * ones, for timing `chatd import slack` (never part of the test suite):
 *   npm run build && node dist/tools/bench/slack-export.js OUT.zip [N]
 *   /usr/bin/time -v bin/chatd --data-dir /tmp/bench-data import slack OUT.zip
 */
import { writeSlackExport } from "../../test/helpers/slack-export.js";

const [out, count = "100000"] = process.argv.slice(2);
if (!out) throw new Error("usage: slack-export.js OUT.zip [N]");
await writeSlackExport(out, { fillerMessages: Number(count) });

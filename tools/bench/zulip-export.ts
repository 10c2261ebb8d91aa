// Writes a Zulip-format export of N messages (default 100,000) for timing `chatd import zulip`:
//   npm run build && node dist/tools/bench/zulip-export.js OUT_DIR [N]
//   /usr/bin/time -v bin/chatd --data-dir /tmp/bench-data import zulip OUT_DIR
// The realm, users and channels are test/fixtures/zulip-export's; messages go to its two
// channels and its DMs, 1,000 per file as Zulip writes them, each with its users' rows.
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [out, count = "100000"] = process.argv.slice(2);
if (!out) throw new Error("usage: zulip-export.js OUT_DIR [N]");
const total = Number(count);
// Run from dist/tools/bench: the fixture is in the source tree.
const fixture = new URL("../../../test/fixtures/zulip-export", import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
cpSync(fixture, out, { recursive: true });
rmSync(join(out, "messages-000001.json"));
writeFileSync(join(out, "attachment.json"), JSON.stringify({ zerver_attachment: [] }));
writeFileSync(join(out, "uploads", "records.json"), "[]");

const verona = [10, 11, 12, 13, 14, 15, 16, 17];
const senders = [10, 11, 12, 13, 14];
const words = ["crown", "ghost", "castle", "sword", "poison", "letter", "ship", "grave", "king", "queen"];
let userMessageId = 1;
for (let file = 0; file * 1000 < total; file++) {
  const messages: Array<Record<string, unknown>> = [];
  const userMessages: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 1000 && file * 1000 + i < total; i++) {
    const id = 100 + file * 1000 + i;
    const sender = senders[id % senders.length]!;
    const dm = id % 10 === 0;
    const text = `message ${id} about the ${words[id % 10]!} and the ${words[(id * 7) % 10]!}`;
    messages.push({
      id,
      sender,
      recipient: dm ? 34 : 40,
      realm: 2,
      subject: dm ? "" : `topic ${id % 50}`,
      content: text,
      rendered_content: `<p>${text}</p>`,
      rendered_content_version: 1,
      date_sent: 1700000000 + id,
      sending_client: 1,
      last_edit_time: null,
      edit_history: null,
      has_attachment: false,
      has_image: false,
      has_link: false,
    });
    const readers = dm ? [sender, 14] : verona;
    for (const user of new Set(readers)) {
      const flags = (user === sender ? 1 : id % 3 === 0 ? 1 : 0) | (dm ? 2048 : 0) | (id % 97 === 0 ? 2 : 0);
      userMessages.push({ id: userMessageId++, user_profile: user, message: id, flags_mask: flags });
    }
  }
  const name = `messages-${String(file + 1).padStart(6, "0")}.json`;
  writeFileSync(
    join(out, name),
    JSON.stringify({ zerver_message: messages, zerver_usermessage: userMessages }),
  );
}

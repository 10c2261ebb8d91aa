import { createWriteStream } from "node:fs";
import yazl from "yazl";

/**
 * Writes a Slack export zip as Slack documents its format (https://slack.com/help/articles/220556107):
 * users.json, channels.json, groups.json (private channels), mpims.json (group DMs), dms.json,
 * and a folder per conversation of day files (YYYY-MM-DD.json) holding that day's messages;
 * files' bytes under __uploads/<file id>/<file name>, as slack-advanced-exporter and slackdump
 * write them. The fixed part holds every feature the importer carries; `fillerMessages`
 * adds plain messages spread over days, for the speed check.
 */

/** Slack "ts" strings of the fixed messages (2024-01-15 and -16, UTC). */
export const TS = {
  join: "1705309200.000100",
  hello: "1705309260.000200",
  threadParent: "1705309320.000300",
  threadReply1: "1705309380.000400",
  threadReply2: "1705395780.000500", // the next day
  edited: "1705309440.000600",
  editedAt: "1705309999.987654",
  me: "1705309500.000700",
  integration: "1705309560.000800",
  botUser: "1705309620.000900",
  fileInZip: "1705309680.001000",
  fileOutside: "1705309740.001100",
  image: "1705309800.001200",
  tombstone: "1705309860.001300",
  leave: "1705309920.001400",
  code: "1705309980.001500",
  deleted: "1705310040.001600",
  secret: "1705310100.001700",
  archived: "1705310160.001800",
  mpim: "1705310220.001900",
  dmAlice: "1705310280.002000",
  dmBob: "1705310340.002100",
  mention: "1705310400.002200",
} as const;

export const FILES = {
  report: {
    id: "F0REPORT",
    name: "report ü.txt",
    title: "Quarterly report",
    bytes: Buffer.from("Q1: ünïcödé revenue ↑ 12%\n", "utf8"),
  },
  image: {
    id: "F0IMAGE",
    name: "photo.png",
    title: "Team photo",
    bytes: Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37 + 11) % 256)),
  },
  outside: {
    id: "F0OUT",
    name: "design.pdf",
    title: "Design",
    url: "https://files.slack.com/files-pri/T01-F0OUT/design.pdf",
  },
} as const;

const TEAM = "T0TEAM";
const user = (fields: Record<string, unknown>, profile: Record<string, unknown>) => ({
  team_id: TEAM,
  deleted: false,
  is_admin: false,
  is_owner: false,
  is_primary_owner: false,
  is_restricted: false,
  is_ultra_restricted: false,
  is_bot: false,
  is_app_user: false,
  updated: 1705300000,
  ...fields,
  profile: { team: TEAM, ...profile },
});

export const USERS = [
  user(
    { id: "U0BOB", name: "bob", real_name: "Bob 李", is_admin: true, tz: "Asia/Tokyo" },
    { real_name: "Bob 李", display_name: "bob", email: "bob@example.com" },
  ),
  user(
    {
      id: "U0ALICE",
      name: "alice",
      real_name: "Alice Ádám",
      is_owner: true,
      is_primary_owner: true,
      is_admin: true,
      tz: "Europe/Budapest",
    },
    { real_name: "Alice Ádám", email: "alice@example.com" },
  ),
  user(
    { id: "U0CAROL", name: "carol", real_name: "Carol Ørsted", is_owner: true, tz: "Europe/Copenhagen" },
    { real_name: "Carol Ørsted", email: "carol@example.com" },
  ),
  user(
    { id: "U0DAVE", name: "dave", real_name: "Dave Gone", deleted: true },
    { real_name: "Dave Gone", email: "dave@example.com" },
  ),
  user(
    { id: "U0EVE", name: "eve", real_name: "Eve Guest", is_restricted: true, tz: "America/Chicago" },
    { real_name: "Eve Guest", email: "eve@example.com" },
  ),
  user(
    {
      id: "U0FRANK",
      name: "frank",
      real_name: "Frank Sansmail",
      tz: "Etc/Unknown-no-slash".replace("/", ""),
    },
    { real_name: "Frank Sansmail" },
  ),
  user(
    { id: "U0DEPLOY", name: "deploybot", real_name: "Deploy Bot", is_bot: true },
    { real_name: "Deploy Bot", real_name_normalized: "Deploy Bot", bot_id: "B0DEPLOY", first_name: "Deploy" },
  ),
  user(
    { id: "USLACKBOT", name: "slackbot", real_name: "Slackbot", is_bot: false },
    { real_name: "Slackbot", first_name: "slackbot" },
  ),
];

const ACTIVE = ["U0ALICE", "U0BOB", "U0CAROL", "U0EVE", "U0FRANK"];
const channel = (id: string, name: string, members: string[], extra: Record<string, unknown> = {}) => ({
  id,
  name,
  created: 1700000000,
  creator: "U0ALICE",
  is_archived: false,
  is_general: name === "general",
  members,
  pins: [],
  topic: { value: "", creator: "", last_set: 0 },
  purpose: { value: "", creator: "", last_set: 0 },
  ...extra,
});

export const CHANNELS = [
  channel("C0GENERAL", "general", [...ACTIVE, "U0DAVE", "U0DEPLOY"], {
    purpose: { value: "Company-wide ✨ announcements\nand chat", creator: "U0ALICE", last_set: 1 },
  }),
  channel("C0RANDOM", "random", ["U0ALICE", "U0BOB", "U0CAROL"], {
    topic: { value: "Anything goes 🎲", creator: "U0BOB", last_set: 1 },
  }),
  channel("C0ARCHIVE", "vieux-projet", ["U0ALICE", "U0CAROL"], {
    is_archived: true,
    purpose: { value: "Ancien projet", creator: "U0ALICE", last_set: 1 },
  }),
];
export const GROUPS = [
  channel("G0SECRET", "sécret", ["U0ALICE", "U0BOB"], {
    purpose: { value: "Private plans", creator: "U0ALICE", last_set: 1 },
  }),
];
export const MPIMS = [
  {
    id: "G0MPIM",
    name: "mpdm-alice--bob--carol-1",
    created: 1700000000,
    creator: "U0ALICE",
    is_archived: false,
    members: ["U0ALICE", "U0BOB", "U0CAROL"],
    topic: { value: "" },
    purpose: { value: "" },
  },
];
export const DMS = [{ id: "D0AB", created: 1700000000, members: ["U0ALICE", "U0BOB"] }];

const msg = (ts: string, userId: string | null, text: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  ...(userId ? { user: userId } : {}),
  text,
  ts,
  ...extra,
});
const fileObject = (
  f: { id: string; name: string; title: string },
  mimetype: string,
  size: number,
  url?: string,
) => ({
  id: f.id,
  created: 1705309000,
  timestamp: 1705309000,
  name: f.name,
  title: f.title,
  mimetype,
  filetype: mimetype.split("/")[1],
  user: "U0CAROL",
  size,
  mode: "hosted",
  url_private: url ?? `https://files.slack.com/files-pri/${TEAM}-${f.id}/${encodeURIComponent(f.name)}`,
});

/** The Slack markup of the "hello" message: every kind of markup there is. */
export const HELLO_TEXT =
  "Hello *world* and _everyone_, ~gone~ `*not bold*` <@U0BOB> <@U0CAROL|carol> <#C0RANDOM|random> <!channel> " +
  "<https://example.com/a_b_c|Example &amp; co> <https://example.org> <mailto:x@example.com|x@example.com> &lt;tag&gt; — ünïcödé 🎉";

function fixedDays(): Map<string, Map<string, unknown[]>> {
  const general15 = [
    msg(TS.join, "U0FRANK", "<@U0FRANK> has joined the channel", { subtype: "channel_join" }),
    msg(TS.hello, "U0ALICE", HELLO_TEXT, {
      reactions: [
        { name: "+1", users: ["U0BOB", "U0CAROL"], count: 2 },
        { name: "clap::skin-tone-2", users: ["U0BOB"], count: 1 },
        { name: "clap", users: ["U0BOB", "U0EVE"], count: 2 },
        { name: "not-a-real-slack-emoji", users: ["U0BOB"], count: 1 },
      ],
    }),
    msg(
      TS.threadParent,
      "U0BOB",
      "Déploiement ce soir ? Let's discuss the *release* plan for the new version here",
      {
        thread_ts: TS.threadParent,
        reply_count: 2,
        replies: [
          { user: "U0ALICE", ts: TS.threadReply1 },
          { user: "U0CAROL", ts: TS.threadReply2 },
        ],
      },
    ),
    msg(TS.threadReply1, "U0ALICE", "Yes, at 20:00 🚀", {
      thread_ts: TS.threadParent,
      parent_user_id: "U0BOB",
    }),
    msg(TS.edited, "U0CAROL", "Fixed typo", { edited: { user: "U0CAROL", ts: TS.editedAt } }),
    msg(TS.me, "U0BOB", "waves 👋", { subtype: "me_message" }),
    msg(TS.integration, null, "Build #42 passed", {
      subtype: "bot_message",
      bot_id: "B0JENKINS",
      username: "Jenkins CI",
    }),
    msg(TS.botUser, "U0DEPLOY", "Deployed v1.2.3", { bot_id: "B0DEPLOY" }),
    msg(TS.fileInZip, "U0CAROL", "Here is the report", {
      files: [fileObject(FILES.report, "text/plain", FILES.report.bytes.length)],
    }),
    msg(TS.fileOutside, "U0CAROL", "", {
      files: [fileObject(FILES.outside, "application/pdf", 1234, FILES.outside.url)],
    }),
    msg(TS.image, "U0CAROL", "Photo", {
      subtype: "file_share",
      files: [fileObject(FILES.image, "image/png", FILES.image.bytes.length)],
    }),
    msg(TS.tombstone, "U0CAROL", "", { files: [{ id: "F0GONE", mode: "tombstone" }] }),
    msg(TS.leave, "U0EVE", "<@U0EVE> has left the channel", { subtype: "channel_leave" }),
    msg(TS.code, "U0BOB", "```const a = *b*;\nif (a < b) return;```"),
    msg(TS.deleted, "U0DAVE", "I will be gone soon"),
    msg(TS.mention, "U0ALICE", "ping <@U0EVE> and <@U0FRANK>"),
  ];
  return new Map([
    [
      "general",
      new Map<string, unknown[]>([
        ["2024-01-15", general15],
        [
          "2024-01-16",
          [
            msg(TS.threadReply2, "U0CAROL", "Done ✅", {
              thread_ts: TS.threadParent,
              parent_user_id: "U0BOB",
            }),
          ],
        ],
      ]),
    ],
    ["sécret", new Map([["2024-01-15", [msg(TS.secret, "U0BOB", "Top *secret* 🤫")]]])],
    ["vieux-projet", new Map([["2024-01-15", [msg(TS.archived, "U0CAROL", "Dernier message")]]])],
    ["mpdm-alice--bob--carol-1", new Map([["2024-01-15", [msg(TS.mpim, "U0CAROL", "Group chat ☕")]]])],
    [
      "D0AB",
      new Map([
        [
          "2024-01-15",
          [
            msg(TS.dmAlice, "U0ALICE", "Hi Bob, privately"),
            msg(TS.dmBob, "U0BOB", "Hi Alice 👋", {
              reactions: [{ name: "heart", users: ["U0ALICE"], count: 1 }],
            }),
          ],
        ],
      ]),
    ],
  ]);
}

export interface SlackExportOptions {
  /** Plain messages added in #general and #random over days from 2023-01-01, for the speed check. */
  fillerMessages?: number;
  /** Leave the fixed messages out (the speed check's export is filler only). */
  fillerOnly?: boolean;
}

const FILLER_PER_DAY = 1000;
const FILLER_START = Date.UTC(2023, 0, 1) / 1000;

export async function writeSlackExport(path: string, options: SlackExportOptions = {}): Promise<void> {
  const zip = new yazl.ZipFile();
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on("close", resolve);
    out.on("error", reject);
    zip.outputStream.pipe(out);
  });
  const json = (name: string, value: unknown) =>
    zip.addBuffer(Buffer.from(JSON.stringify(value, null, 4)), name);
  json("users.json", USERS);
  json("channels.json", CHANNELS);
  json("groups.json", GROUPS);
  json("mpims.json", MPIMS);
  json("dms.json", DMS);
  json("integration_logs.json", []);
  const days = options.fillerOnly ? new Map<string, Map<string, unknown[]>>() : fixedDays();
  for (const [dir, byDate] of days)
    for (const [date, messages] of byDate) json(`${dir}/${date}.json`, messages);
  if (!options.fillerOnly) {
    zip.addBuffer(FILES.report.bytes, `__uploads/${FILES.report.id}/${FILES.report.name}`);
    zip.addBuffer(FILES.image.bytes, `__uploads/${FILES.image.id}/${FILES.image.name}`);
  }
  const total = options.fillerMessages ?? 0;
  const authors = ["U0ALICE", "U0BOB", "U0CAROL"];
  for (let start = 0, day = 0; start < total; start += FILLER_PER_DAY, day++) {
    const date = new Date((FILLER_START + day * 86400) * 1000).toISOString().slice(0, 10);
    const perChannel: Record<string, unknown[]> = { general: [], random: [] };
    for (let i = start; i < Math.min(total, start + FILLER_PER_DAY); i++) {
      const ts = `${FILLER_START + day * 86400 + (i - start) * 60}.${String(i % 1000000).padStart(6, "0")}`;
      const threaded = i % 10 === 1 ? { thread_ts: ts } : {};
      const reactions = i % 7 === 0 ? { reactions: [{ name: "thumbsup", users: ["U0BOB"], count: 1 }] } : {};
      perChannel[i % 2 === 0 ? "general" : "random"]!.push(
        msg(
          ts,
          authors[i % 3]!,
          `Message ${i} with *bold*, <@U0BOB> and a <https://example.com/${i}|link> ✨`,
          { ...threaded, ...reactions },
        ),
      );
    }
    for (const [dir, messages] of Object.entries(perChannel))
      if (messages.length > 0) json(`${dir}/${date}.json`, messages);
  }
  zip.end();
  await done;
}

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { expectSuccess } from "../helpers/client.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import type { State } from "../helpers/apply-events.js";
import { register } from "../helpers/events.js";
import { MOBILE_APP_REGISTER, MOBILE_APP_SNAPSHOT } from "../helpers/mobile-app-snapshot.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * The Zulip mobile app (zulip-flutter) registers with the parameters below and decodes the
 * answer strictly: one missing or mistyped field and it cannot load the account. This
 * registers exactly as the app does, over a realm with data in every list the app reads,
 * and checks every field its decoders require (test/helpers/mobile-app-snapshot.ts), then
 * what it requires after decoding. Keys whose fetch type another piece of work is still
 * building (pending in test/fixtures/register-keys.json) are pending here too.
 */
const PENDING = new Map(
  (
    JSON.parse(
      readFileSync(new URL("../../../test/fixtures/register-keys.json", import.meta.url), "utf8"),
    ) as { keys: Array<{ key: string; pending?: string }> }
  ).keys.flatMap((k) => (k.pending ? [[k.key, k.pending] as const] : [])),
);

describe("POST /register as the Zulip mobile app makes it", function () {
  let server: TestServer;
  let u: Cast;
  let snapshot: State;

  before(async function () {
    server = await startTestServer();
    const realm = await server.factory.realm();
    u = cast(realm);
    const { hamlet, othello, cordelia, iago } = u;
    const editor = expectSuccess(
      await iago.client.post("/realm/profile_fields", {
        field_type: 3,
        name: "Editor",
        field_data: { vim: { text: "Vim", order: "1" }, emacs: { text: "Emacs", order: "2" } },
      }),
    ).id as number;
    expectSuccess(
      await iago.client.post("/realm/profile_fields", {
        field_type: 7,
        name: "GitHub",
        field_data: { subtype: "github" },
      }),
    );
    expectSuccess(
      await hamlet.client.patch("/users/me/profile_data", { data: [{ id: editor, value: "vim" }] }),
    );
    expectSuccess(
      await othello.client.post("/users/me/status", { status_text: "At sea", emoji_name: "ship" }),
    );
    expectSuccess(await cordelia.client.post("/users/me/status", { status_text: "Banished" }));
    expectSuccess(await othello.client.post("/users/me/presence", { status: "active" }));
    expectSuccess(await hamlet.client.post("/saved_snippets", { title: "Greeting", content: "Well met." }));
    expectSuccess(
      await iago.client.post("/user_groups/create", {
        name: "Players",
        description: "",
        members: [hamlet.id],
      }),
    );
    const folder = expectSuccess(
      await iago.client.post("/channel_folders/create", { name: "Castle", description: "The **keep**" }),
    ).channel_folder_id as number;
    const elsinore = await createChannel(hamlet, "Elsinore", [hamlet, othello, cordelia], {
      folder_id: folder,
    });
    const ghost = await sendToChannel(othello, "Elsinore", "battlements", `@**${hamlet.fullName}** a ghost`);
    expectSuccess(
      await hamlet.client.post("/messages/flags", { messages: [ghost], op: "add", flag: "starred" }),
    );
    expectSuccess(
      await hamlet.client.post("/user_topics", {
        stream_id: elsinore,
        topic: "battlements",
        visibility_policy: 3,
      }),
    );
    expectSuccess(await hamlet.client.post("/users/me/alert_words", { alert_words: ["ghost"] }));
    expectSuccess(await hamlet.client.post(`/users/me/muted_users/${u.prospero.id}`));
    await sendDirect(othello, [hamlet], "a word");
    await sendDirect(othello, [hamlet, cordelia], "all three");
    await sendDirect(hamlet, [hamlet], "a note to self");
    expectSuccess(await hamlet.client.post("/register_client_device"));
    await server.factory.user(realm.id, "yorick-bot", 400, { isBot: true, botOwnerId: hamlet.id });
    const gone = await server.factory.user(realm.id, "yorick");
    expectSuccess(await iago.client.delete(`/users/${gone.id}`));
    snapshot = await register(hamlet.client, MOBILE_APP_REGISTER);
  });
  after(async function () {
    await server.close();
  });

  describe("decodes", function () {
    for (const [key, check] of Object.entries(MOBILE_APP_SNAPSHOT)) {
      const pending = PENDING.get(key);
      if (pending) {
        it.skip(`${key} (pending: ${pending})`, () => undefined);
        continue;
      }
      it(key, function () {
        expect(check(snapshot[key], key)).to.deep.equal([]);
      });
    }
  });

  it("has data in the lists it decodes, so their items were checked", function () {
    for (const key of [
      "alert_words",
      "muted_users",
      "starred_messages",
      "user_topics",
      "custom_profile_fields",
      "realm_user_groups",
      "recent_private_conversations",
      "saved_snippets",
      "subscriptions",
      "channel_folders",
      "streams",
      "realm_users",
      "realm_non_active_users",
      "cross_realm_bots",
    ]) {
      expect(snapshot[key], key).to.be.an("array").that.is.not.empty;
    }
    for (const key of ["presences", "user_status", "devices"]) {
      expect(snapshot[key], key).to.be.an("object").that.is.not.empty;
    }
    const unread = snapshot.unread_msgs as Record<string, unknown[]>;
    for (const key of ["pms", "streams", "huddles", "mentions"]) expect(unread[key], key).to.not.be.empty;
  });

  it("passes the store's checks: a queue, a supported feature level, the user among the users", function () {
    expect(snapshot.queue_id).to.be.a("string").that.is.not.empty;
    // Below 277 the app logs out; below 371 it shows an "unsupported server" banner.
    expect(snapshot.zulip_feature_level).to.be.at.least(371);
    const users = [
      ...(snapshot.realm_users as State[]),
      ...(snapshot.realm_non_active_users as State[]),
      ...(snapshot.cross_realm_bots as State[]),
    ];
    expect(users.map((x) => x.user_id as number)).to.include(u.hamlet.id);
  });

  it("gives what the app needs at run time instead of its legacy fallbacks", function () {
    // Deleting, topics and the empty topic have no fallback when both forms are null.
    expect(snapshot.realm_can_delete_own_message_group).to.not.equal(null);
    expect(snapshot.realm_topics_policy).to.be.a("string");
    expect(snapshot.realm_empty_topic_display_name).to.be.a("string").that.is.not.empty;
    // Each GET /events is cut off client-side after this long: heartbeats must come sooner.
    expect(snapshot.event_queue_longpoll_timeout_seconds).to.be.above(
      server.app.config.heartbeat_interval_secs,
    );
  });

  it("lets a member post where they may: every channel's sending group resolves to them", function () {
    const groups = new Map((snapshot.realm_user_groups as State[]).map((g) => [g.id as number, g]));
    const includes = (groupId: number, userId: number, seen = new Set<number>()): boolean => {
      const group = groups.get(groupId);
      if (!group || seen.has(groupId)) return false;
      seen.add(groupId);
      return (
        (group.members as number[]).includes(userId) ||
        (group.direct_subgroup_ids as number[]).some((id) => includes(id, userId, seen))
      );
    };
    for (const sub of snapshot.subscriptions as State[]) {
      const setting = sub.can_send_message_group as number | { direct_members: number[] } | null;
      expect(setting, `${String(sub.name)}: can_send_message_group`).to.not.equal(null);
      const allowed =
        typeof setting === "number"
          ? includes(setting, u.hamlet.id)
          : setting!.direct_members.includes(u.hamlet.id);
      expect(allowed, `${String(sub.name)}: hamlet may post`).to.be.true;
    }
  });

  it("keeps the conversation encodings the app parses", function () {
    const me = u.hamlet.id;
    for (const conversation of snapshot.recent_private_conversations as State[]) {
      // The other users: [] is the self-DM.
      expect(conversation.user_ids as number[]).to.not.include(me);
    }
    const unread = snapshot.unread_msgs as Record<string, State[]>;
    const sortedIds = (ids: number[]) => expect(ids).to.deep.equal([...new Set(ids)].sort((a, b) => a - b));
    for (const huddle of unread.huddles!) {
      // Comma-separated decimal IDs, self included, ascending.
      const ids = (huddle.user_ids_string as string).split(",").map((s) => Number.parseInt(s, 10));
      expect(ids).to.include(me);
      sortedIds(ids);
      sortedIds(huddle.unread_message_ids as number[]);
    }
    for (const entry of [...unread.pms!, ...unread.streams!]) sortedIds(entry.unread_message_ids as number[]);
  });

  it("serves server_emoji_data_url without credentials, as the app fetches it", async function () {
    const url = new URL(snapshot.server_emoji_data_url as string);
    const res = await fetch(new URL(url.pathname + url.search, server.url));
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { code_to_names: Record<string, unknown> };
    expect(body.code_to_names).to.be.an("object");
    for (const [code, names] of Object.entries(body.code_to_names)) {
      // Unqualified code points (no fe0f), lowercase hex joined by "-"; at least one name each.
      expect(code, code).to.match(/^[0-9a-f]+(-[0-9a-f]+)*$/);
      expect(code.split("-"), code).to.not.include("fe0f");
      expect(names, code).to.be.an("array").that.is.not.empty;
      for (const name of names as unknown[]) expect(name, code).to.be.a("string");
    }
    // The app's popular emoji.
    expect(body.code_to_names).to.include.keys("1f44d", "1f389", "1f642", "2764", "1f6e0", "1f419");
  });
});

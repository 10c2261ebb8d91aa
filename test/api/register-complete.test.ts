import { expect } from "chai";
import { readFileSync } from "node:fs";
import { expectSuccess } from "../helpers/client.js";
import { cast, createChannel, setRealmFields, systemGroupId, type Cast } from "../helpers/channels.js";
import type { State } from "../helpers/apply-events.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Every key Zulip's OpenAPI documents for POST /register (test/fixtures/register-keys.json,
 * made by tools/generate-register-keys.ts) is present, with its documented type,
 * when its fetch type is requested or when no types are given. Keys another piece of
 * work is building are `pending` there, and pending here until it flips them.
 */
interface KeyEntry {
  key: string;
  fetch: string;
  legacy?: true;
  types: string[];
  items?: string[];
  values?: string[];
  fields?: string[];
  pending?: string;
  conditional?: string;
}
const FIXTURE = JSON.parse(
  readFileSync(new URL("../../../test/fixtures/register-keys.json", import.meta.url), "utf8"),
) as { keys: KeyEntry[] };

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Does a value have one of the documented types (an integer is a number too)? */
function hasType(value: unknown, types: readonly string[]): boolean {
  const type = jsonType(value);
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

function expectKeyAsDocumented(state: State, entry: KeyEntry): void {
  const where = `${entry.key} (fetch type ${entry.fetch})`;
  expect(state, where).to.have.property(entry.key);
  const value = state[entry.key] as unknown;
  expect(hasType(value, entry.types), `${where}: ${jsonType(value)}, documented ${entry.types.join(" | ")}`)
    .to.be.true;
  if (entry.items && Array.isArray(value)) {
    for (const item of value) expect(hasType(item, entry.items), `${where}: an item`).to.be.true;
  }
  if (entry.values && jsonType(value) === "object") {
    for (const item of Object.values(value as object)) {
      expect(hasType(item, entry.values), `${where}: a value`).to.be.true;
    }
  }
  if (entry.fields && jsonType(value) === "object") expect(value, where).to.include.keys(...entry.fields);
}

const byFetchType = new Map<string, KeyEntry[]>();
for (const entry of FIXTURE.keys) {
  if (entry.conditional) continue;
  const list = byFetchType.get(entry.fetch) ?? [];
  list.push(entry);
  byFetchType.set(entry.fetch, list);
}

describe("POST /register is complete", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let full: State;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    // Enough data that lists and maps have members to check.
    await server.factory.user(realm.id, "yorick-bot", 400, { isBot: true, botOwnerId: u.hamlet.id });
    await createChannel(u.hamlet, "Elsinore", [u.hamlet, u.iago]);
    await sendToChannel(u.hamlet, "Elsinore", "castle", `hello @**${u.iago.fullName}**`);
    await sendDirect(u.hamlet, [u.iago], "psst");
    full = await register(u.iago.client);
  });
  after(async function () {
    await server.close();
  });

  it("covers every documented key, none twice", function () {
    expect(FIXTURE.keys.length).to.equal(new Set(FIXTURE.keys.map((k) => k.key)).size);
    expect(FIXTURE.keys.length).to.be.at.least(241);
  });

  for (const [fetch, entries] of byFetchType) {
    const pending = entries.filter((e) => e.pending);
    const ready = entries.filter((e) => !e.pending);
    if (ready.length > 0) {
      it(`returns the keys of ${fetch} with their documented types`, function () {
        for (const entry of ready) expectKeyAsDocumented(full, entry);
      });
    }
    if (ready.length > 0 && fetch !== "always" && !fetch.includes("+")) {
      it(`returns them when only ${fetch} is requested`, async function () {
        const state = await register(u.iago.client, { fetch_event_types: [fetch] });
        for (const entry of ready) expectKeyAsDocumented(state, entry);
      });
    }
    for (const owner of new Set(pending.map((e) => e.pending))) {
      const keys = pending.filter((e) => e.pending === owner).map((e) => e.key);
      it.skip(`${fetch}: ${keys.join(", ")} (pending: ${owner})`, () => undefined);
    }
  }

  it("returns unread_msgs only when message and update_message_flags are both requested", async function () {
    const flagsOnly = await register(u.iago.client, { fetch_event_types: ["update_message_flags"] });
    expect(flagsOnly).not.to.have.property("unread_msgs");
    const messageOnly = await register(u.iago.client, { fetch_event_types: ["message"] });
    expect(messageOnly).not.to.have.property("unread_msgs");
    const both = await register(u.iago.client, { fetch_event_types: ["message", "update_message_flags"] });
    expect((both.unread_msgs as { mentions: number[] }).mentions).to.have.length(1);
  });

  it("ignores fetch types it does not know", async function () {
    const state = await register(u.iago.client, { fetch_event_types: ["no_such_type", "giphy"] });
    expect(state.giphy_api_key).to.equal("");
    expect(state).not.to.have.property("realm_name");
  });

  describe("values", function () {
    it("describes the server's permission-setting rules from its registry", function () {
      const settings = full.server_supported_permission_settings as Record<string, Record<string, State>>;
      expect(settings.realm!.can_create_web_public_channel_group).to.deep.equal({
        require_system_group: true,
        allow_internet_group: false,
        allow_nobody_group: true,
        allow_everyone_group: false,
        default_group_name: "role:owners",
        default_for_system_groups: null,
        allowed_system_groups: ["role:moderators", "role:administrators", "role:owners", "role:nobody"],
      });
      expect(settings.stream!.can_administer_channel_group!.default_group_name).to.equal(
        "stream_creator_or_nobody",
      );
      expect(settings.group!.can_manage_group).to.include({
        default_group_name: "group_creator",
        default_for_system_groups: "role:nobody",
      });
      expect(Object.keys(settings.realm!)).to.include("can_mention_many_users_group");
    });

    it("states what chatd does not have: Jitsi, digests, GIPHY, Zoom", function () {
      expect(full).to.include({
        realm_jitsi_server_url: null,
        server_jitsi_server_url: null,
        jitsi_server_url: null,
        settings_send_digest_emails: false,
        realm_digest_emails_enabled: false,
        giphy_api_key: "",
        has_zoom_token: false,
        navigation_tour_video_url: null,
        server_min_deactivated_realm_deletion_days: 14,
        server_max_deactivated_realm_deletion_days: null,
      });
      // Thumbnails exist since uploads do: the formats are the ones chatd makes.
      expect((full.server_thumbnail_formats as Array<{ name: string }>).map((f) => f.name)).to.include(
        "840x560.webp",
      );
      expect(full.giphy_rating_options).to.deep.include({
        disabled: { name: "GIPHY integration disabled", id: 0 },
      });
      expect(Object.keys(full.giphy_rating_options as object)).to.deep.equal([
        "disabled",
        "y",
        "g",
        "pg",
        "pg-13",
        "r",
      ]);
      for (const key of ["realm_emoji", "push_devices"]) expect(full[key], key).to.deep.equal({});
      for (const key of [
        "realm_linkifiers",
        "realm_filters",
        "realm_playgrounds",
        "realm_domains",
        "realm_default_stream_groups",
        "realm_embedded_bots",
        "drafts",
        "scheduled_messages",
        "reminders",
        "onboarding_steps",
        "stop_words",
      ])
        expect(full[key], key).to.deep.equal([]);
      expect(full.realm_billing).to.deep.equal({ has_pending_sponsorship_request: false });
      // Incoming webhooks are built: test/api/incoming-webhooks.test.ts checks their description.
      expect((full.realm_incoming_webhook_bots as Array<{ name: string }>).map((i) => i.name)).to.deep.equal([
        "alertmanager",
        "github",
        "gitlab",
        "json",
        "slack_incoming",
      ]);
    });

    it("derives the deprecated *_policy settings from the group settings, as Zulip", async function () {
      // The defaults: members create channels, owners web-public ones, admins mention many.
      expect(full).to.include({
        realm_create_public_stream_policy: 1,
        realm_create_private_stream_policy: 1,
        realm_create_web_public_stream_policy: 7,
        realm_wildcard_mention_policy: 5,
      });
      const own = await server.factory.realm();
      const group = expectSuccess(
        await cast(own).iago.client.post("/user_groups/create", {
          name: "Players",
          description: "",
          members: [cast(own).hamlet.id],
        }),
      ).group_id as number;
      await setRealmFields(server, own, {
        can_create_public_channel_group_id: await systemGroupId(server, own, "role:fullmembers"),
        // The old enum could not say "everyone": the largest group it allowed, members.
        can_create_private_channel_group_id: await systemGroupId(server, own, "role:everyone"),
        // A user group: the largest the old setting allowed (moderators for web-public).
        can_create_web_public_channel_group_id: await systemGroupId(server, own, "role:moderators"),
        can_mention_many_users_group_id: group,
      });
      expect(await register(cast(own).hamlet.client, { fetch_event_types: ["realm"] })).to.include({
        realm_create_public_stream_policy: 3,
        realm_create_private_stream_policy: 1,
        realm_create_web_public_stream_policy: 4,
        realm_wildcard_mention_policy: 1,
      });
      await setRealmFields(server, own, {
        can_mention_many_users_group_id: await systemGroupId(server, own, "role:nobody"),
      });
      expect(
        (await register(cast(own).hamlet.client, { fetch_event_types: ["realm"] }))
          .realm_wildcard_mention_policy,
      ).to.equal(6);
    });
  });

  describe("realm_bots", function () {
    const bots = async (user: TestUser) =>
      ((await register(user.client, { fetch_event_types: ["realm_bot"] })).realm_bots as State[]).map(
        (b) => b.user_id as number,
      );

    it("lists every bot to administrators, and their own bots to others", async function () {
      const own = await server.factory.realm();
      const c = cast(own);
      const hamlets = await server.factory.user(own.id, "fool-bot", 400, {
        isBot: true,
        botOwnerId: c.hamlet.id,
      });
      const othellos = await server.factory.user(own.id, "jester-bot", 400, {
        isBot: true,
        botOwnerId: c.othello.id,
      });
      expect(await bots(c.iago)).to.deep.equal([hamlets.id, othellos.id]);
      expect(await bots(c.desdemona)).to.deep.equal([hamlets.id, othellos.id]);
      expect(await bots(c.hamlet)).to.deep.equal([hamlets.id]);
      expect(await bots(c.cordelia)).to.deep.equal([]);
      const [bot] = (await register(c.hamlet.client, { fetch_event_types: ["realm_bot"] }))
        .realm_bots as State[];
      expect(bot).to.deep.include({
        user_id: hamlets.id,
        email: hamlets.email,
        full_name: hamlets.fullName,
        bot_type: 1,
        is_active: true,
        // chatd keeps only a digest of each key: it cannot show one again.
        api_key: "",
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
        owner_id: c.hamlet.id,
        services: [],
      });
      expect(bot!.avatar_url).to.be.a("string");
    });

    it("sends realm_bot updates on a bot's (de)activation to those who administer it", async function () {
      const own = await server.factory.realm();
      const c = cast(own);
      const bot = await server.factory.user(own.id, "fool-bot", 400, {
        isBot: true,
        botOwnerId: c.hamlet.id,
      });
      const othello = await register(c.othello.client, { event_types: ["realm_bot"] });
      const types = { fetch_event_types: ["realm_bot"], event_types: ["realm_bot"] };
      const events = await verifyRegisterParity(c.iago.client, types, async () => {
        expectSuccess(await c.iago.client.delete(`/users/${c.hamlet.id}`));
        expectSuccess(await c.iago.client.post(`/users/${bot.id}/reactivate`));
      });
      expect(events).to.deep.equal([
        { type: "realm_bot", op: "update", bot: { user_id: bot.id, is_active: false }, id: 0 },
        { type: "realm_bot", op: "update", bot: { user_id: bot.id, is_active: true }, id: 1 },
        // As in Zulip, reactivating a bot whose owner is deactivated makes the actor its owner.
        { type: "realm_bot", op: "update", bot: { user_id: bot.id, owner_id: c.iago.id }, id: 2 },
      ]);
      expect(await pendingEvents(c.othello.client, othello.queue_id as string)).to.deep.equal([]);
    });
  });
});

import { expect } from "chai";
import type { RealmRow } from "../../src/db/rows.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, stable, verifyRegisterParity } from "../helpers/events.js";
import type { Event, State } from "../helpers/apply-events.js";
import { postToChannel, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

/** PATCH /realm: the organization's own settings (group permissions: realm-group-settings.test.ts). */
describe("PATCH /realm: organization settings", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  beforeEach(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
  });
  afterEach(async function () {
    await server.close();
  });

  const patch = (user: TestUser, params: Params) => user.client.patch("/realm", params);
  const realmState = async (user: TestUser = u.hamlet): Promise<State> =>
    register(user.client, { fetch_event_types: ["realm"] });
  const realmRow = async (): Promise<RealmRow> =>
    (await server.app.knex<RealmRow>("realms").where({ id: realm.id }).first())!;
  /** A queue of hamlet's for realm events: what everyone is told. */
  const watch = async (user: TestUser = u.hamlet) => {
    const queue = (await register(user.client, { event_types: ["realm", "user_group"] })).queue_id as string;
    return async () => (await pendingEvents(user.client, queue)).map(({ id: _id, ...event }: Event) => event);
  };

  describe("changes and events", function () {
    it("renames and describes the organization: realm update events to everyone, register parity", async function () {
      const others = await watch(u.polonius);
      let body: Record<string, unknown> = {};
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        body = expectSuccess(
          await patch(u.iago, { name: "Elsinore Castle", description: "Something is **rotten**" }),
        );
      });
      expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal([
        { type: "realm", op: "update", property: "description", value: "Something is **rotten**" },
        { type: "realm", op: "update", property: "name", value: "Elsinore Castle" },
      ]);
      expect(await others()).to.deep.equal(events.map(({ id: _id, ...e }) => e));
      // Zulip's answer names what changed; strings as "updated".
      expect(body).to.deep.include({ name: "updated", description: "updated" });
      const state = await realmState(u.othello);
      expect([state.realm_name, state.realm_description]).to.deep.equal([
        "Elsinore Castle",
        "Something is **rotten**",
      ]);
      const row = await realmRow();
      expect([row.name, row.description]).to.deep.equal(["Elsinore Castle", "Something is **rotten**"]);
    });

    it("sends the message-editing settings as update_dict, the other time limits as update; 'unlimited' is no limit", async function () {
      let body: Record<string, unknown> = {};
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        body = expectSuccess(
          await patch(u.iago, {
            allow_message_editing: false,
            message_content_edit_limit_seconds: "unlimited",
            message_content_delete_limit_seconds: 3600,
            move_messages_within_stream_limit_seconds: "unlimited",
            move_messages_between_streams_limit_seconds: 86400,
          }),
        );
      });
      expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal([
        { type: "realm", op: "update_dict", property: "default", data: { allow_message_editing: false } },
        { type: "realm", op: "update", property: "message_content_delete_limit_seconds", value: 3600 },
        {
          type: "realm",
          op: "update_dict",
          property: "default",
          data: { message_content_edit_limit_seconds: null },
        },
        {
          type: "realm",
          op: "update",
          property: "move_messages_between_streams_limit_seconds",
          value: 86400,
        },
        { type: "realm", op: "update", property: "move_messages_within_stream_limit_seconds", value: null },
      ]);
      expect(body).to.deep.include({
        allow_message_editing: false,
        message_content_edit_limit_seconds: null,
        message_content_delete_limit_seconds: 3600,
      });
      const state = await realmState();
      expect(state).to.deep.include({
        realm_allow_message_editing: false,
        realm_message_content_edit_limit_seconds: null,
        realm_message_content_delete_limit_seconds: 3600,
        realm_move_messages_within_stream_limit_seconds: null,
        realm_move_messages_between_streams_limit_seconds: 86400,
      });
      // The settings take effect: editing is off.
      const id = await createChannel(u.hamlet, "Denmark");
      const message = await sendToChannel(u.hamlet, id, "castle", "To be");
      expectError(
        await u.hamlet.client.patch(`/messages/${message}`, { content: "Or not" }),
        400,
        "Your organization has turned off message editing",
      );
    });

    it("topics_policy: update_dict with the mandatory_topics it decides; the empty topic is refused", async function () {
      const id = await createChannel(u.hamlet, "Denmark");
      expectSuccess(await postToChannel(u.hamlet, id, "", "General chat is fine"));
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.iago, { topics_policy: "disable_empty_topic" }));
      });
      expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal([
        {
          type: "realm",
          op: "update_dict",
          property: "default",
          data: { topics_policy: "disable_empty_topic", mandatory_topics: true },
        },
      ]);
      expect(await realmState()).to.deep.include({
        realm_topics_policy: "disable_empty_topic",
        realm_mandatory_topics: true,
      });
      expectError(
        await postToChannel(u.hamlet, id, "", "General chat?"),
        400,
        "Sending messages to the general chat topic is not allowed in this channel.",
      );
    });

    it("message_edit_history_visibility_policy: its name in an update, realm_allow_edit_history follows", async function () {
      const id = await createChannel(u.hamlet, "Denmark");
      const message = await sendToChannel(u.hamlet, id, "castle", "To be");
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.iago, { message_edit_history_visibility_policy: "none" }));
      });
      expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal([
        { type: "realm", op: "update", property: "message_edit_history_visibility_policy", value: "none" },
      ]);
      expect(await realmState()).to.deep.include({
        realm_message_edit_history_visibility_policy: "none",
        realm_allow_edit_history: false,
      });
      expectError(
        await u.hamlet.client.get(`/messages/${message}/history`),
        400,
        "Message edit history is disabled in this organization",
      );
      await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.iago, { message_edit_history_visibility_policy: "moves" }));
      });
      expect((await realmState()).realm_allow_edit_history).to.equal(true);
    });

    it("changes every other stored setting, each with its own update event, org_type last", async function () {
      const changes: Params = {
        avatar_changes_disabled: true,
        default_code_block_language: "python",
        default_language: "de",
        digest_weekday: 4,
        email_changes_disabled: true,
        enable_guest_user_dm_warning: false,
        enable_guest_user_indicator: false,
        enable_read_receipts: false,
        enable_spectator_access: true,
        giphy_rating: 5,
        inline_image_preview: false,
        inline_url_embed_preview: true,
        name_changes_disabled: true,
        org_type: 20,
        require_unique_names: true,
        send_welcome_emails: false,
        video_chat_provider: 0,
        welcome_message_custom_text: "Read #**general** first.",
      };
      const before = await realmState();
      let body: Record<string, unknown> = {};
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        body = expectSuccess(await patch(u.iago, changes));
      });
      const names = Object.keys(changes).filter((name) => name !== "org_type");
      expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal(
        [...names, "org_type"].map((name) => ({
          type: "realm",
          op: "update",
          property: name,
          value: changes[name],
        })),
      );
      const after = await realmState();
      for (const [name, value] of Object.entries(changes)) {
        expect(after[`realm_${name}`], name).to.equal(value);
        expect(before[`realm_${name}`], name).to.not.equal(value);
      }
      expect(body).to.deep.include({ default_language: "updated", digest_weekday: 4, org_type: 20 });
      // A setting chatd reads: read receipts are now off.
      const id = await createChannel(u.hamlet, "Denmark");
      const message = await sendToChannel(u.hamlet, id, "castle", "To be");
      expectError(
        await u.hamlet.client.get(`/messages/${message}/read_receipts`),
        400,
        "Read receipts are disabled in this organization.",
      );
    });

    it("stores digest_emails_enabled but shows it off and announces nothing: chatd sends no email", async function () {
      const events = await watch();
      const body = expectSuccess(await patch(u.iago, { digest_emails_enabled: true }));
      expect(body.digest_emails_enabled).to.equal(true);
      expect(Boolean((await realmRow()).digest_emails_enabled)).to.equal(true);
      expect(await realmState()).to.deep.include({
        realm_digest_emails_enabled: false,
        settings_send_digest_emails: false,
      });
      expect(await events()).to.deep.equal([]);
    });

    it("answers an unchanged value with success and sends nothing", async function () {
      const state = await realmState();
      const events = await watch();
      const body = expectSuccess(
        await patch(u.iago, {
          name: state.realm_name as string,
          allow_message_editing: state.realm_allow_message_editing as boolean,
          message_content_delete_limit_seconds: "unlimited",
          topics_policy: state.realm_topics_policy as string,
          message_edit_history_visibility_policy: "all",
          default_language: "en",
          new_stream_announcements_stream_id: -1,
        }),
      );
      expect(Object.keys(body).sort()).to.deep.equal(["msg", "result"]);
      expect(await events()).to.deep.equal([]);
      expect(stable(await realmState())).to.deep.equal(stable(state));
    });

    it("reports the parameters chatd does not store (or Zulip no longer takes) as ignored", async function () {
      const body = expectSuccess(
        await patch(u.desdemona, {
          mandatory_topics: true,
          allow_edit_history: false,
          want_advertise_in_communities_directory: true,
          jitsi_server_url: "https://meet.example.org",
          name: "Elsinore",
        }),
      );
      expect(body.ignored_parameters_unsupported).to.deep.equal([
        "allow_edit_history",
        "jitsi_server_url",
        "mandatory_topics",
        "want_advertise_in_communities_directory",
      ]);
      expect((await realmState()).realm_mandatory_topics).to.equal(false);
    });
  });

  describe("owners' settings", function () {
    it("lets owners keep messages for a number of days, or forever ('unlimited': -1)", async function () {
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.desdemona, { message_retention_days: 30, invite_required: false }));
      });
      expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal([
        { type: "realm", op: "update", property: "invite_required", value: false },
        { type: "realm", op: "update", property: "message_retention_days", value: 30 },
      ]);
      expect((await realmRow()).message_retention_days).to.equal(30);
      await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.desdemona, { message_retention_days: "unlimited" }));
      });
      expect((await realmState()).realm_message_retention_days).to.equal(-1);
      expect((await realmRow()).message_retention_days).to.equal(null);
    });

    it("refuses a subdomain change: chatd has no demo organizations (and only owners may ask)", async function () {
      expectError(
        await patch(u.iago, { string_id: "castle" }),
        400,
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expectError(
        await patch(u.desdemona, { string_id: "castle", name: "Castle" }),
        400,
        "Must be a demo organization.",
      );
      expect((await realmRow()).name).to.equal("Elsinore");
    });
  });

  describe("who may", function () {
    it("refuses everyone but administrators, changing nothing and telling nobody", async function () {
      const row = await realmRow();
      const events = await watch();
      for (const user of [u.prospero, u.hamlet, u.polonius]) {
        expectError(
          await patch(user, {
            name: "Mine now",
            enable_read_receipts: true,
            welcome_message_custom_text: "Hi",
          }),
          400,
          "Must be an organization administrator",
          "UNAUTHORIZED_PRINCIPAL",
        );
      }
      expect(await realmRow()).to.deep.equal(row);
      expect(await events()).to.deep.equal([]);
    });

    it("refuses administrators each owner-only setting, and the whole request with it", async function () {
      const row = await realmRow();
      const events = await watch();
      for (const params of [
        { invite_required: false },
        { emails_restricted_to_domains: true },
        { waiting_period_threshold: 3 },
        { message_retention_days: 30 },
      ] as Params[]) {
        expectError(
          await patch(u.iago, { name: "Half done", ...params }),
          400,
          "Must be an organization owner",
          "UNAUTHORIZED_PRINCIPAL",
        );
      }
      expect(await realmRow()).to.deep.equal(row);
      expect(await events()).to.deep.equal([]);
    });

    it("lets owners change the owner-only settings", async function () {
      expectSuccess(await patch(u.desdemona, { invite_required: false, emails_restricted_to_domains: true }));
      const state = await realmState();
      expect([state.realm_invite_required, state.realm_emails_restricted_to_domains]).to.deep.equal([
        false,
        true,
      ]);
    });
  });

  describe("bad values", function () {
    it("refuses each with Zulip's error naming the parameter, writing nothing and telling nobody", async function () {
      const row = await realmRow();
      const events = await watch();
      const long = (n: number) => "x".repeat(n);
      for (const [params, message, code] of [
        [{ name: long(41) }, "name is too long (limit: 40 characters)"],
        [{ description: long(1001) }, "description is too long (limit: 1000 characters)"],
        [
          { welcome_message_custom_text: long(8001) },
          "welcome_message_custom_text is too long (limit: 8000 characters)",
        ],
        [{ allow_message_editing: "sometimes" }, "allow_message_editing is not a boolean"],
        [{ default_language: "xx" }, "Invalid language 'xx'"],
        [{ giphy_rating: 9 }, "Invalid giphy_rating 9"],
        [{ video_chat_provider: 1 }, "Invalid video_chat_provider 1"],
        [{ digest_weekday: 7 }, "Invalid digest_weekday"],
        [{ org_type: 15 }, "Invalid org_type"],
        [{ topics_policy: "empty_topic_only" }, "Invalid topics_policy"],
        [
          { message_edit_history_visibility_policy: "some" },
          "Invalid message_edit_history_visibility_policy",
        ],
        [
          { message_content_edit_limit_seconds: 0 },
          "Bad value for 'message_content_edit_limit_seconds': 0",
          "REQUEST_VARIABLE_INVALID",
        ],
        [
          { message_content_delete_limit_seconds: "forever" },
          "Bad value for 'message_content_delete_limit_seconds': forever",
          "REQUEST_VARIABLE_INVALID",
        ],
        [
          { move_messages_within_stream_limit_seconds: 1.5 },
          "move_messages_within_stream_limit_seconds is not an integer",
        ],
        [
          { default_code_block_language: long(41) },
          "default_code_block_language is too long (limit: 40 characters)",
        ],
        [
          { new_stream_announcements_stream_id: "general" },
          "new_stream_announcements_stream_id is not an integer",
        ],
        // Checked before anything is written: the good values of the request are not kept.
        [{ name: "Half done", digest_weekday: -1 }, "Invalid digest_weekday"],
      ] as Array<[Params, string, string?]>) {
        expectError(await patch(u.iago, params), 400, message, code);
      }
      for (const [params, message, code] of [
        [{ waiting_period_threshold: -1 }, "waiting_period_threshold is too small"],
        [
          { message_retention_days: 0 },
          "Bad value for 'message_retention_days': 0",
          "REQUEST_VARIABLE_INVALID",
        ],
        [
          { message_retention_days: "realm_default" },
          "Bad value for 'message_retention_days': realm_default",
          "REQUEST_VARIABLE_INVALID",
        ],
      ] as Array<[Params, string, string?]>) {
        expectError(await patch(u.desdemona, params), 400, message, code);
      }
      expect(await realmRow()).to.deep.equal(row);
      expect(await events()).to.deep.equal([]);
    });
  });
});

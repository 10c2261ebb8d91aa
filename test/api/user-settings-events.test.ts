import { expect } from "chai";
import { USER_SETTING_SPECS } from "../../src/world/user-settings.js";
import { expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { Event } from "../helpers/apply-events.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { ROLE } from "../../src/world/roles.js";

const MODERN = { client_capabilities: { user_settings_object: true } };
const LEGACY = { client_capabilities: {} };

/** The legacy top-level register keys, as Zulip's OpenAPI lists them. */
const LEGACY_DISPLAY_KEYS = [
  "color_scheme",
  "default_language",
  "demote_inactive_streams",
  "emojiset",
  "emojiset_choices",
  "enable_drafts_synchronization",
  "enter_sends",
  "fluid_layout_width",
  "high_contrast_mode",
  "left_side_userlist",
  // Not in Zulip's legacy set, but OpenAPI documents it among register's top-level keys.
  "receives_typing_notifications",
  "starred_message_counts",
  "timezone",
  "translate_emoticons",
  "twenty_four_hour_time",
  "web_home_view",
];
const LEGACY_NOTIFICATION_KEYS = [
  "available_notification_sounds",
  "desktop_icon_count_display",
  "email_notifications_batching_period_seconds",
  "enable_desktop_notifications",
  "enable_digest_emails",
  "enable_login_emails",
  "enable_marketing_emails",
  "enable_offline_email_notifications",
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_sounds",
  "enable_stream_audible_notifications",
  "enable_stream_desktop_notifications",
  "enable_stream_email_notifications",
  "enable_stream_push_notifications",
  "message_content_in_email_notifications",
  "notification_sound",
  "pm_content_in_desktop_notifications",
  "presence_enabled",
  "realm_name_in_email_notifications_policy",
  "wildcard_mentions_notify",
];

const strip = (events: Event[]) => events.map(({ id: _id, ...e }) => e);

describe("user settings: register and events", function () {
  let server: TestServer;
  let realm: TestRealm;
  let serial = 0;
  const u = (name: string) => realm.users[name]!;
  const fresh = (role: (typeof ROLE)[keyof typeof ROLE] = ROLE.MEMBER) =>
    server.factory.user(realm.id, `events${++serial}`, role);
  const change = async (user: TestUser, params: Params) => {
    expectSuccess(await user.client.patch("/settings", params));
  };
  /** What each of the user's two queues (modern and legacy) received for `params`. */
  async function eventsFor(user: TestUser, params: Params, registerParams: Params = {}) {
    const modern = await register(user.client, { ...registerParams, ...MODERN });
    const legacy = await register(user.client, { ...registerParams, ...LEGACY });
    await change(user, params);
    return {
      modern: strip(await pendingEvents(user.client, modern.queue_id as string)),
      legacy: strip(await pendingEvents(user.client, legacy.queue_id as string)),
    };
  }

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  describe("register", function () {
    it("user_settings has every setting and the choices, with or without user_settings_object", async function () {
      const user = await fresh();
      for (const capabilities of [MODERN, LEGACY]) {
        const state = await register(user.client, { fetch_event_types: ["user_settings"], ...capabilities });
        const settings = state.user_settings as Record<string, unknown>;
        expect(Object.keys(settings).sort()).to.deep.equal(
          [
            ...USER_SETTING_SPECS.map((s) => s.name),
            "available_notification_sounds",
            "emojiset_choices",
          ].sort(),
        );
        expect(settings.emojiset_choices).to.deep.equal([
          { key: "google", text: "Google" },
          { key: "twitter", text: "Twitter" },
          { key: "text", text: "Plain text" },
          { key: "google-blob", text: "Google blobs" },
        ]);
        expect(settings.available_notification_sounds).to.include.members(["zulip", "ding", "chime"]);
      }
    });

    it("has the legacy top-level keys only for clients without user_settings_object", async function () {
      const user = await fresh();
      const types = { fetch_event_types: ["update_display_settings", "update_global_notifications"] };
      const legacy = await register(user.client, { ...types, ...LEGACY });
      const always = Object.keys(await register(user.client, { fetch_event_types: [], ...LEGACY }));
      expect(
        Object.keys(legacy)
          .filter((k) => !always.includes(k))
          .sort(),
      ).to.deep.equal([...LEGACY_DISPLAY_KEYS, ...LEGACY_NOTIFICATION_KEYS].sort());
      expect(legacy.emojiset).to.equal("google");
      expect(legacy.enable_sounds).to.equal(true);
      const modern = await register(user.client, { ...types, ...MODERN });
      for (const key of [...LEGACY_DISPLAY_KEYS, ...LEGACY_NOTIFICATION_KEYS]) {
        expect(modern, key).not.to.have.property(key);
      }
    });

    it("gives the mobile app's required user_settings fields their JSON types", async function () {
      const user = await fresh();
      const settings = (await register(user.client, MODERN)).user_settings as Record<string, unknown>;
      expect(settings.twenty_four_hour_time).to.be.a("boolean");
      expect(settings.starred_message_counts).to.be.a("boolean");
      expect(settings.display_emoji_reaction_users).to.be.a("boolean");
      expect(settings.presence_enabled).to.be.a("boolean");
      expect(settings.emojiset).to.be.oneOf(["google", "google-blob", "twitter", "text"]);
    });
  });

  describe("events", function () {
    it("a display setting: user_settings, plus update_display_settings for legacy clients", async function () {
      const user = await fresh();
      const { modern, legacy } = await eventsFor(user, { emojiset: "text" });
      const event = { type: "user_settings", op: "update", property: "emojiset", value: "text" };
      expect(modern).to.deep.equal([event]);
      expect(legacy).to.deep.equal([
        event,
        { type: "update_display_settings", user: user.email, setting_name: "emojiset", setting: "text" },
      ]);
    });

    it("a notification setting: user_settings, plus update_global_notifications for legacy clients", async function () {
      const user = await fresh();
      const { modern, legacy } = await eventsFor(user, { enable_sounds: false });
      const event = { type: "user_settings", op: "update", property: "enable_sounds", value: false };
      expect(modern).to.deep.equal([event]);
      expect(legacy).to.deep.equal([
        event,
        {
          type: "update_global_notifications",
          user: user.email,
          notification_name: "enable_sounds",
          setting: false,
        },
      ]);
    });

    it("a setting newer than feature level 89: user_settings alone, for every client", async function () {
      const user = await fresh();
      const { modern, legacy } = await eventsFor(user, { send_read_receipts: false });
      const event = { type: "user_settings", op: "update", property: "send_read_receipts", value: false };
      expect(modern).to.deep.equal([event]);
      expect(legacy).to.deep.equal([event]);
    });

    it("default_language: both events name the language", async function () {
      const user = await fresh();
      const { modern, legacy } = await eventsFor(user, { default_language: "de" });
      const event = {
        type: "user_settings",
        op: "update",
        property: "default_language",
        value: "de",
        language_name: "Deutsch",
      };
      expect(modern).to.deep.equal([event]);
      expect(legacy).to.deep.equal([
        event,
        {
          type: "update_display_settings",
          user: user.email,
          setting_name: "default_language",
          setting: "de",
          language_name: "Deutsch",
        },
      ]);
    });

    it("timezone: the user's clients, and everyone else as a realm_user update", async function () {
      const user = await fresh();
      const watcher = await register(u("othello").client, { event_types: ["realm_user"] });
      const { modern, legacy } = await eventsFor(user, { timezone: "Asia/Kolkata" });
      const person = { user_id: user.id, email: user.email, timezone: "Asia/Kolkata" };
      const update = { type: "realm_user", op: "update", person };
      const event = { type: "user_settings", op: "update", property: "timezone", value: "Asia/Kolkata" };
      expect(modern).to.deep.equal([event, update]);
      expect(legacy).to.deep.equal([
        event,
        {
          type: "update_display_settings",
          user: user.email,
          setting_name: "timezone",
          setting: "Asia/Kolkata",
        },
        update,
      ]);
      expect(strip(await pendingEvents(u("othello").client, watcher.queue_id as string))).to.deep.equal([
        update,
      ]);
    });

    it("a queue gets the event types it registered for, legacy ones included", async function () {
      const user = await fresh();
      const onlyLegacy = await register(user.client, {
        event_types: ["update_global_notifications"],
        ...LEGACY,
      });
      const onlyModern = await register(user.client, { event_types: ["user_settings"], ...LEGACY });
      const capable = await register(user.client, {
        event_types: ["update_global_notifications"],
        ...MODERN,
      });
      await change(user, { enable_digest_emails: false });
      expect(strip(await pendingEvents(user.client, onlyLegacy.queue_id as string))).to.deep.equal([
        {
          type: "update_global_notifications",
          user: user.email,
          notification_name: "enable_digest_emails",
          setting: false,
        },
      ]);
      expect(strip(await pendingEvents(user.client, onlyModern.queue_id as string))).to.deep.equal([
        { type: "user_settings", op: "update", property: "enable_digest_emails", value: false },
      ]);
      expect(await pendingEvents(user.client, capable.queue_id as string)).to.deep.equal([]);
    });

    it("only the user hears of their settings; an unchanged value sends nothing", async function () {
      const user = await fresh();
      const watcher = await register(u("othello").client, {});
      const { modern, legacy } = await eventsFor(user, { enable_sounds: true, emojiset: "google" });
      expect([modern, legacy]).to.deep.equal([[], []]);
      await change(user, { left_side_userlist: true });
      expect(await pendingEvents(u("othello").client, watcher.queue_id as string)).to.deep.equal([]);
    });
  });

  describe("register state + events = a fresh register", function () {
    const everything: Params = {
      twenty_four_hour_time: true,
      emojiset: "twitter",
      default_language: "fr",
      web_home_view: "recent_topics",
      enable_sounds: false,
      notification_sound: "ding",
      email_notifications_batching_period_seconds: 300,
      presence_enabled: false,
      send_read_receipts: false,
      resolved_topic_notice_auto_read_policy: "never",
      web_font_size_px: 14,
      timezone: "Europe/Lisbon",
    };

    for (const [label, capabilities] of [
      ["with user_settings_object", MODERN],
      ["without user_settings_object (legacy keys and events)", LEGACY],
    ] as const) {
      it(label, async function () {
        const user = await fresh();
        await verifyRegisterParity(user.client, { ...capabilities }, async () => {
          await change(user, everything);
          await change(user, { emojiset: "text", timezone: "America/Sao_Paulo" });
        });
      });
    }

    it("another user's time zone", async function () {
      const user = await fresh();
      await verifyRegisterParity(u("othello").client, {}, async () => {
        await change(user, { timezone: "Australia/Perth" });
      });
    });
  });

  describe("email_address_visibility", function () {
    it("hides the real email from those the new value excludes, and gives the user a new API email", async function () {
      const user = await fresh();
      const dummy = `user${user.id}@${TEST_HOST}`;
      const admin = await register(u("iago").client, { event_types: ["realm_user"] });
      const member = await register(u("othello").client, { event_types: ["realm_user"] });
      const { modern } = await eventsFor(
        user,
        { email_address_visibility: 3 },
        { event_types: ["realm_user", "user_settings"] },
      );
      expect(modern.slice(0, 2)).to.deep.equal([
        { type: "user_settings", op: "update", property: "email_address_visibility", value: 3 },
        { type: "realm_user", op: "update", person: { user_id: user.id, new_email: dummy } },
      ]);
      const memberEvents = strip(await pendingEvents(u("othello").client, member.queue_id as string));
      expect(memberEvents.map((e) => e.person as unknown).slice(0, 2)).to.deep.equal([
        { user_id: user.id, delivery_email: null },
        { user_id: user.id, new_email: dummy },
      ]);
      const adminEvents = strip(await pendingEvents(u("iago").client, admin.queue_id as string));
      expect(
        adminEvents.map((e) => e.person as { delivery_email?: unknown }).some((p) => "delivery_email" in p),
      ).to.equal(false);
      const me = expectSuccess(await user.client.get("/users/me"));
      expect([me.email, me.delivery_email]).to.deep.equal([dummy, user.email]);
      const seen = expectSuccess(await u("othello").client.get(`/users/${user.id}`)).user;
      expect([seen.email, seen.delivery_email]).to.deep.equal([dummy, null]);
    });

    it("register parity, for the user and for others, both ways", async function () {
      const user = await fresh();
      for (const viewer of [user, u("othello"), u("iago"), u("polonius")]) {
        // The user themself without client_gravatar, as in the email change test of
        // user-settings.test.ts: chatd's realm_user flavour sends client_gravatar clients
        // a null avatar_url even about themselves, register's top-level one is the URL.
        const params = viewer === user ? { client_gravatar: false } : {};
        await verifyRegisterParity(viewer.client, params, async () => {
          await change(user, { email_address_visibility: 2 });
        });
        await verifyRegisterParity(viewer.client, params, async () => {
          await change(user, { email_address_visibility: 1 });
        });
      }
    });
  });
});

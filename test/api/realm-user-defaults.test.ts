import { expect } from "chai";
import { USER_SETTING_SPECS } from "../../src/world/user-settings.js";
import { ROLE } from "../../src/world/roles.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { setRealmFields } from "../helpers/channels.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

const notInList = (name: string) => `Invalid ${name}: Value error, Not in the list of possible values`;

describe("PATCH /realm/user_settings_defaults and register's realm_user_settings_defaults", function () {
  let server: TestServer;
  let realm: TestRealm;
  let serial = 0;
  const u = (name: string) => realm.users[name]!;
  const defaultsOf = async (user: TestUser) =>
    (await register(user.client, { fetch_event_types: ["realm_user_settings_defaults"] }))
      .realm_user_settings_defaults as Record<string, unknown>;
  const settingsOf = async (user: TestUser) =>
    (await register(user.client, { fetch_event_types: ["user_settings"] })).user_settings as Record<
      string,
      unknown
    >;
  const patch = (user: TestUser, params: Params) =>
    user.client.patch("/realm/user_settings_defaults", params);

  beforeEach(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  afterEach(async function () {
    await server.close();
  });

  it("lists every setting but timezone at Zulip's defaults, with the choices", async function () {
    const defaults = await defaultsOf(u("hamlet"));
    const names = USER_SETTING_SPECS.map((s) => s.name).filter((n) => n !== "timezone");
    expect(Object.keys(defaults).sort()).to.deep.equal(
      [...names, "available_notification_sounds", "emojiset_choices"].sort(),
    );
    for (const spec of USER_SETTING_SPECS) {
      if (spec.name !== "timezone") expect(defaults[spec.name], spec.name).to.equal(spec.default);
    }
  });

  it("administrators change defaults; every active user is told; register parity", async function () {
    for (const admin of [u("iago"), u("desdemona")]) {
      const watcher = await register(u("polonius").client, { event_types: ["realm_user_settings_defaults"] });
      await verifyRegisterParity(u("hamlet").client, {}, async () => {
        expectSuccess(await patch(admin, { emojiset: "text", enable_sounds: false, color_scheme: 2 }));
      });
      const events = await pendingEvents(u("polonius").client, watcher.queue_id as string);
      expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal(
        admin === u("iago")
          ? [
              { type: "realm_user_settings_defaults", op: "update", property: "color_scheme", value: 2 },
              { type: "realm_user_settings_defaults", op: "update", property: "emojiset", value: "text" },
              { type: "realm_user_settings_defaults", op: "update", property: "enable_sounds", value: false },
            ]
          : [],
      );
    }
    const defaults = await defaultsOf(u("hamlet"));
    expect([defaults.emojiset, defaults.enable_sounds, defaults.color_scheme]).to.deep.equal([
      "text",
      false,
      2,
    ]);
  });

  it("refuses everyone else (moderators, members, guests), changing nothing", async function () {
    const before = await defaultsOf(u("hamlet"));
    const watcher = await register(u("hamlet").client, { event_types: ["realm_user_settings_defaults"] });
    for (const name of ["prospero", "hamlet", "polonius"]) {
      expectError(
        await patch(u(name), { emojiset: "text" }),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
    }
    expect(await defaultsOf(u("hamlet"))).to.deep.equal(before);
    expect(await pendingEvents(u("hamlet").client, watcher.queue_id as string)).to.deep.equal([]);
  });

  it("validates values with Zulip's errors, all or nothing", async function () {
    const before = await defaultsOf(u("iago"));
    for (const [params, message] of [
      [{ web_home_view: "nowhere" }, "Invalid web_home_view"],
      [{ web_animate_image_previews: "sometimes" }, "Invalid web_animate_image_previews"],
      [{ emojiset: "apple" }, notInList("emojiset")],
      [{ color_scheme: 7 }, notInList("color_scheme")],
      [{ enable_sounds: "loud" }, "enable_sounds is not a boolean"],
      [{ notification_sound: "boing" }, "Invalid notification sound 'boing'"],
      [{ email_notifications_batching_period_seconds: 0 }, "Invalid email batching period: 0 seconds"],
      [{ emojiset: "text", email_address_visibility: 9 }, notInList("email_address_visibility")],
    ] as const) {
      expectError(await patch(u("iago"), params), 400, message);
    }
    expect(await defaultsOf(u("iago"))).to.deep.equal(before);
  });

  it("ignores the settings that are each person's own (Zulip leaves them out)", async function () {
    const body = expectSuccess(
      await patch(u("iago"), {
        default_language: "de",
        enable_login_emails: false,
        enable_marketing_emails: false,
        allow_private_data_export: true,
        timezone: "Europe/Berlin",
        enable_digest_emails: false,
      }),
    );
    expect(body.ignored_parameters_unsupported).to.deep.equal([
      "allow_private_data_export",
      "default_language",
      "enable_login_emails",
      "enable_marketing_emails",
      "timezone",
    ]);
    const defaults = await defaultsOf(u("iago"));
    expect([
      defaults.default_language,
      defaults.enable_login_emails,
      defaults.enable_digest_emails,
    ]).to.deep.equal(["en", true, false]);
  });

  it("new users copy the defaults (and the realm's language); existing users and bots keep theirs", async function () {
    expectSuccess(
      await patch(u("iago"), {
        emojiset: "google-blob",
        send_read_receipts: false,
        twenty_four_hour_time: true,
        email_address_visibility: 2,
        notification_sound: "none",
      }),
    );
    await setRealmFields(server, realm, { default_language: "fr" });
    const newcomer = await server.factory.user(realm.id, `newcomer${++serial}`, ROLE.MEMBER);
    const settings = await settingsOf(newcomer);
    expect([
      settings.emojiset,
      settings.send_read_receipts,
      settings.twenty_four_hour_time,
      settings.email_address_visibility,
      settings.notification_sound,
      settings.default_language,
      settings.enable_login_emails,
    ]).to.deep.equal(["google-blob", false, true, 2, "none", "fr", true]);
    // Email visible to members only: the API email is the dummy one.
    expect(expectSuccess(await newcomer.client.get("/users/me")).email).to.match(/^user\d+@/);

    const old = await settingsOf(u("hamlet"));
    expect([old.emojiset, old.send_read_receipts, old.email_address_visibility]).to.deep.equal([
      "google",
      true,
      1,
    ]);

    const bot = await server.factory.user(realm.id, `bot${++serial}`, ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u("hamlet").id,
    });
    const botSettings = await settingsOf(bot);
    expect([
      botSettings.emojiset,
      botSettings.send_read_receipts,
      botSettings.email_address_visibility,
    ]).to.deep.equal(["google", true, 1]);
  });

  it("each realm has its own defaults", async function () {
    const other = await server.factory.realm({ lear: ROLE.ADMINISTRATOR }, "Britain");
    expectSuccess(await patch(u("iago"), { emojiset: "text" }));
    expect((await defaultsOf(other.users.lear!)).emojiset).to.equal("google");
  });
});

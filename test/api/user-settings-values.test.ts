import { expect } from "chai";
import { USER_SETTING_SPECS } from "../../src/world/user-settings.js";
import { expectError, expectSuccess, type ParamValue } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

const notInList = (name: string) => `Invalid ${name}: Value error, Not in the list of possible values`;
const notBool = (name: string) => `${name} is not a boolean`;
const notInt = (name: string) => `${name} is not an integer`;

interface Case {
  /** Accepted values other than the default; each is stored and echoed as sent. */
  valid: ParamValue[];
  /** Refused values and Zulip's error. */
  invalid: Array<[ParamValue, string]>;
}

const boolCase = (name: string, value: boolean): Case => ({
  valid: [!value],
  invalid: [
    ["maybe", notBool(name)],
    [2, notBool(name)],
  ],
});
const choiceCase = (name: string, valid: number[], outside: number[]): Case => ({
  valid,
  invalid: [...outside.map((v): [ParamValue, string] => [v, notInList(name)]), ["one", notInt(name)]],
});

/** Every setting of PATCH /settings, with its values and Zulip's errors. */
const CASES: Record<string, Case> = {
  twenty_four_hour_time: boolCase("twenty_four_hour_time", false),
  web_mark_read_on_scroll_policy: choiceCase("web_mark_read_on_scroll_policy", [2, 3], [0, 4]),
  web_channel_default_view: choiceCase("web_channel_default_view", [2, 4], [0, 3, 5]),
  starred_message_counts: boolCase("starred_message_counts", true),
  receives_typing_notifications: boolCase("receives_typing_notifications", true),
  web_suggest_update_timezone: boolCase("web_suggest_update_timezone", true),
  fluid_layout_width: boolCase("fluid_layout_width", false),
  high_contrast_mode: boolCase("high_contrast_mode", false),
  web_font_size_px: { valid: [14, 20], invalid: [["big", notInt("web_font_size_px")]] },
  web_line_height_percent: { valid: [122], invalid: [["1.5", notInt("web_line_height_percent")]] },
  color_scheme: choiceCase("color_scheme", [2, 3], [0, 4]),
  translate_emoticons: boolCase("translate_emoticons", false),
  display_emoji_reaction_users: boolCase("display_emoji_reaction_users", true),
  default_language: {
    valid: ["de", "zh-hans", "en-gb"],
    invalid: [
      ["xx", "Invalid default_language"],
      ["EN", "Invalid default_language"],
      ["", "Invalid default_language"],
    ],
  },
  web_home_view: {
    valid: ["recent_topics", "all_messages"],
    invalid: [["nowhere", notInList("web_home_view")]],
  },
  web_escape_navigates_to_home_view: boolCase("web_escape_navigates_to_home_view", true),
  left_side_userlist: boolCase("left_side_userlist", false),
  emojiset: {
    valid: ["google-blob", "twitter", "text"],
    invalid: [
      ["apple", notInList("emojiset")],
      ["Google", notInList("emojiset")],
    ],
  },
  demote_inactive_streams: choiceCase("demote_inactive_streams", [2, 3], [0, 4]),
  user_list_style: choiceCase("user_list_style", [1, 2], [0, 4]),
  web_animate_image_previews: {
    valid: ["always", "never"],
    invalid: [["sometimes", notInList("web_animate_image_previews")]],
  },
  web_stream_unreads_count_display_policy: choiceCase("web_stream_unreads_count_display_policy", [1, 3], [4]),
  hide_ai_features: boolCase("hide_ai_features", false),
  web_left_sidebar_show_channel_folders: boolCase("web_left_sidebar_show_channel_folders", true),
  web_left_sidebar_unreads_count_summary: boolCase("web_left_sidebar_unreads_count_summary", true),
  enter_sends: boolCase("enter_sends", false),
  enable_drafts_synchronization: boolCase("enable_drafts_synchronization", true),
  enable_stream_desktop_notifications: boolCase("enable_stream_desktop_notifications", false),
  enable_stream_email_notifications: boolCase("enable_stream_email_notifications", false),
  enable_stream_push_notifications: boolCase("enable_stream_push_notifications", false),
  enable_stream_audible_notifications: boolCase("enable_stream_audible_notifications", false),
  notification_sound: {
    valid: ["ding", "deep tom", "none"],
    invalid: [
      ["boing", "Invalid notification sound 'boing'"],
      ["Ding", "Invalid notification sound 'Ding'"],
    ],
  },
  enable_desktop_notifications: boolCase("enable_desktop_notifications", true),
  enable_sounds: boolCase("enable_sounds", true),
  enable_followed_topic_desktop_notifications: boolCase("enable_followed_topic_desktop_notifications", true),
  enable_followed_topic_email_notifications: boolCase("enable_followed_topic_email_notifications", true),
  enable_followed_topic_push_notifications: boolCase("enable_followed_topic_push_notifications", true),
  enable_followed_topic_audible_notifications: boolCase("enable_followed_topic_audible_notifications", true),
  email_notifications_batching_period_seconds: {
    valid: [1, 604800],
    invalid: [
      [0, "Invalid email batching period: 0 seconds"],
      [-5, "Invalid email batching period: -5 seconds"],
      [604801, "Invalid email batching period: 604801 seconds"],
      ["soon", notInt("email_notifications_batching_period_seconds")],
    ],
  },
  enable_offline_email_notifications: boolCase("enable_offline_email_notifications", true),
  enable_offline_push_notifications: boolCase("enable_offline_push_notifications", true),
  enable_online_push_notifications: boolCase("enable_online_push_notifications", true),
  enable_digest_emails: boolCase("enable_digest_emails", true),
  enable_marketing_emails: boolCase("enable_marketing_emails", true),
  enable_login_emails: boolCase("enable_login_emails", true),
  message_content_in_email_notifications: boolCase("message_content_in_email_notifications", true),
  pm_content_in_desktop_notifications: boolCase("pm_content_in_desktop_notifications", true),
  wildcard_mentions_notify: boolCase("wildcard_mentions_notify", true),
  enable_followed_topic_wildcard_mentions_notify: boolCase(
    "enable_followed_topic_wildcard_mentions_notify",
    true,
  ),
  desktop_icon_count_display: choiceCase("desktop_icon_count_display", [2, 3, 4], [0, 5]),
  realm_name_in_email_notifications_policy: choiceCase(
    "realm_name_in_email_notifications_policy",
    [2, 3],
    [0, 4],
  ),
  automatically_follow_topics_policy: choiceCase("automatically_follow_topics_policy", [1, 4], [0, 5]),
  automatically_unmute_topics_in_muted_streams_policy: choiceCase(
    "automatically_unmute_topics_in_muted_streams_policy",
    [1, 4],
    [5],
  ),
  automatically_follow_topics_where_mentioned: boolCase("automatically_follow_topics_where_mentioned", true),
  resolved_topic_notice_auto_read_policy: {
    valid: ["always", "never"],
    invalid: [["sometimes", "Invalid resolved_topic_notice_auto_read_policy"]],
  },
  presence_enabled: boolCase("presence_enabled", true),
  send_private_typing_notifications: boolCase("send_private_typing_notifications", true),
  send_stream_typing_notifications: boolCase("send_stream_typing_notifications", true),
  send_read_receipts: boolCase("send_read_receipts", true),
  allow_private_data_export: boolCase("allow_private_data_export", false),
  email_address_visibility: choiceCase("email_address_visibility", [2, 3, 4, 5], [0, 6]),
  web_navigate_to_sent_message: boolCase("web_navigate_to_sent_message", true),
  timezone: {
    valid: ["Europe/Berlin", "America/New_York", "US/Eastern", "UTC"],
    invalid: [
      ["Mars/Olympus_Mons", "Invalid timezone: Value error, Not a recognized time zone"],
      ["europe/berlin", "Invalid timezone: Value error, Not a recognized time zone"],
      ["+01:00", "Invalid timezone: Value error, Not a recognized time zone"],
      ["", "Invalid timezone: Value error, Not a recognized time zone"],
    ],
  },
};

describe("PATCH /settings: display, notification and privacy settings", function () {
  let server: TestServer;
  let realm: TestRealm;
  let serial = 0;
  const fresh = () => server.factory.user(realm.id, `values${++serial}`);
  const settingsOf = async (user: TestUser) =>
    (await register(user.client, { fetch_event_types: ["user_settings"] })).user_settings as Record<
      string,
      unknown
    >;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm({});
  });
  after(async function () {
    await server.close();
  });

  it("has a test case for every setting", function () {
    expect(Object.keys(CASES).sort()).to.deep.equal(USER_SETTING_SPECS.map((s) => s.name).sort());
  });

  it("starts every user at Zulip's defaults", async function () {
    const settings = await settingsOf(await fresh());
    for (const spec of USER_SETTING_SPECS) expect(settings[spec.name], spec.name).to.equal(spec.default);
  });

  for (const [name, { valid, invalid }] of Object.entries(CASES)) {
    it(`${name}: stores valid values, refuses others with Zulip's error`, async function () {
      const user = await fresh();
      for (const value of valid) {
        const body = expectSuccess(await user.client.patch("/settings", { [name]: value }));
        expect(body, `${name}=${JSON.stringify(value)}`).not.to.have.property(
          "ignored_parameters_unsupported",
        );
        expect((await settingsOf(user))[name], `${name}=${JSON.stringify(value)}`).to.equal(value);
      }
      const stored = (await settingsOf(user))[name];
      for (const [value, message] of invalid) {
        expectError(await user.client.patch("/settings", { [name]: value }), 400, message);
      }
      expect((await settingsOf(user))[name]).to.equal(stored);
    });
  }

  it("refuses the whole request when one value is invalid", async function () {
    const user = await fresh();
    const before = await settingsOf(user);
    expectError(
      await user.client.patch("/settings", { emojiset: "twitter", color_scheme: 9, enable_sounds: false }),
      400,
      notInList("color_scheme"),
    );
    expect(await settingsOf(user)).to.deep.equal(before);
  });

  it("takes booleans and integers as JSON or plain text, strings raw (as the mobile app sends)", async function () {
    const user = await fresh();
    expectSuccess(
      await user.client.patch("/settings", {
        starred_message_counts: "false",
        display_emoji_reaction_users: false,
        color_scheme: "2",
        emojiset: "text",
      }),
    );
    const settings = await settingsOf(user);
    expect([
      settings.starred_message_counts,
      settings.display_emoji_reaction_users,
      settings.color_scheme,
      settings.emojiset,
    ]).to.deep.equal([false, false, 2, "text"]);
  });

  it("PATCH /settings/display and /settings/notifications are aliases", async function () {
    const user = await fresh();
    expectSuccess(await user.client.patch("/settings/display", { color_scheme: 3, enable_sounds: false }));
    expectSuccess(await user.client.patch("/settings/notifications", { enable_digest_emails: false }));
    expectError(
      await user.client.patch("/settings/display", { emojiset: "apple" }),
      400,
      notInList("emojiset"),
    );
    const settings = await settingsOf(user);
    expect([settings.color_scheme, settings.enable_sounds, settings.enable_digest_emails]).to.deep.equal([
      3,
      false,
      false,
    ]);
  });

  it("bots may not change settings", async function () {
    const owner = await fresh();
    const bot = await server.factory.user(realm.id, `values-bot${++serial}`, undefined, {
      isBot: true,
      botOwnerId: owner.id,
    });
    expectError(
      await bot.client.patch("/settings", { enable_sounds: false }),
      400,
      "This endpoint does not accept bot requests.",
    );
    expect((await settingsOf(bot)).enable_sounds).to.equal(true);
  });
});

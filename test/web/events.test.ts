import { expect } from "chai";
import { ClientState } from "../../src/web/model/client-state.js";
import { dmPlace, streamPlace } from "../../src/web/model/typing.js";
import {
  ANNOUNCE,
  CORDELIA,
  DESIGN,
  GENERAL,
  IAGO,
  ME,
  OLD,
  OTHELLO,
  POLONIUS,
  SOCIAL,
  channel,
  directMessage,
  registerState,
  streamMessage,
} from "./fixtures.js";
import { applyAll, loadedState, observe, type Unnumbered } from "./observe.js";
import { EMOJI, MORNING, NEW_CHANNEL, T, flagsEvent, messageEvent } from "./morning.js";

describe("web client: events", function () {
  describe("message", function () {
    it("stores the message with its flags, counts it unread, notes its topic, offers it to the lists", function () {
      const state = loadedState(registerState());
      const general = state.lists.get([{ operator: "channel", operand: String(GENERAL) }], ME);
      general.addFetched([101, 102], { oldest: true, newest: true });
      const dms = state.lists.get([{ operator: "is", operand: "dm" }], ME);
      dms.addFetched([107], { oldest: true, newest: true });
      applyAll(state, [messageEvent(streamMessage(112, { topic: "Soup", flags: [] }))]);
      expect(state.messages.value(112)!.flags).to.deep.equal([]);
      expect(state.messages.value(112)!.subject).to.equal("Soup");
      expect(state.unread.topicCount(GENERAL, "soup")).to.equal(1);
      expect(state.topics.forChannel(GENERAL)).to.deep.equal([{ name: "Soup", maxId: 112 }]);
      expect(general.ids.value).to.deep.equal([101, 102, 112]);
      expect(dms.ids.value).to.deep.equal([107]);
    });

    it("counts a direct mention, and a channel-wide one only where the topic is not muted", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        messageEvent(streamMessage(120, { flags: ["stream_wildcard_mentioned", "wildcard_mentioned"] })),
        messageEvent(
          streamMessage(121, { streamId: DESIGN, channelName: "design", topic: "x", flags: ["mentioned"] }),
        ),
        messageEvent(
          streamMessage(122, {
            streamId: DESIGN,
            channelName: "design",
            topic: "x",
            flags: ["stream_wildcard_mentioned"],
          }),
        ),
        messageEvent(
          streamMessage(123, {
            streamId: SOCIAL,
            channelName: "social",
            topic: "muted gossip",
            flags: ["topic_wildcard_mentioned"],
          }),
        ),
        messageEvent(directMessage(124, { to: [ME, CORDELIA], flags: ["stream_wildcard_mentioned"] })),
      ]);
      expect(state.unread.mentionIds().sort()).to.deep.equal([102, 106, 110, 120, 121, 124]);
      expect(state.unread.idsIn({ streamId: DESIGN })).to.deep.equal([104, 121, 122]);
    });

    it("files DMs by conversation and keeps the recent conversations, the user's own read", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        messageEvent(directMessage(130, { to: [ME], senderId: CORDELIA })),
        messageEvent(directMessage(131, { to: [CORDELIA, OTHELLO], senderId: ME, flags: ["read"] })),
        messageEvent(directMessage(132, { to: [ME], senderId: ME, flags: [] })),
      ]);
      expect(state.unread.dmCount(String(CORDELIA))).to.equal(1);
      expect(state.unread.has(131)).to.equal(false);
      expect(state.unread.dmCount(String(ME))).to.equal(2);
      expect(Object.fromEntries(state.recentDms.value)).to.deep.equal({
        "4": 132,
        "5": 108,
        "5,6": 131,
        "6": 130,
      });
    });
  });

  describe("update_message", function () {
    it("replaces edited content and marks it edited; a re-rendering only replaces it", function () {
      const state = loadedState(registerState());
      state.messages.put([streamMessage(101, { flags: [] })]);
      applyAll(state, [MORNING[5]!]);
      const edited = state.messages.value(101)!;
      expect(edited.content).to.equal(
        '<p>lunch, <span class="user-mention" data-user-id="4">@Hamlet Dane</span>?</p>',
      );
      expect(edited.last_edit_timestamp).to.equal(T + 1);
      expect(edited.flags).to.deep.equal(["mentioned", "starred"]);
      applyAll(state, [
        {
          type: "update_message",
          user_id: null,
          edit_timestamp: T + 9,
          message_id: 101,
          message_ids: [101],
          rendering_only: true,
          rendered_content: '<p>lunch <img src="/thumb.webp"></p>',
          flags: ["mentioned", "starred"],
        },
      ]);
      expect(state.messages.value(101)!.content).to.equal('<p>lunch <img src="/thumb.webp"></p>');
      expect(state.messages.value(101)!.last_edit_timestamp).to.equal(T + 1);
    });

    it("an edit that drops a mention drops it from the unread mentions", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        {
          type: "update_message",
          user_id: OTHELLO,
          edit_timestamp: T,
          message_id: 102,
          message_ids: [102],
          rendering_only: false,
          stream_name: "general",
          stream_id: GENERAL,
          orig_content: "@**Hamlet Dane**",
          orig_rendered_content: "<p>@Hamlet Dane</p>",
          content: "never mind",
          rendered_content: "<p>never mind</p>",
          is_me_message: false,
          flags: [],
        },
      ]);
      expect(state.unread.mentionIds().sort()).to.deep.equal([106, 110]);
      expect(state.unread.has(102)).to.equal(true);
    });

    it("a topic move moves the messages, their unread counts and their place in the lists", function () {
      const state = loadedState(registerState());
      state.messages.put([streamMessage(102, { topic: "lunch" }), streamMessage(105, { topic: "lunch" })]);
      const lunch = state.lists.get(
        [
          { operator: "channel", operand: String(GENERAL) },
          { operator: "topic", operand: "lunch" },
        ],
        ME,
      );
      lunch.addFetched([101, 102, 103, 105], { oldest: true, newest: true });
      const dinner = state.lists.get(
        [
          { operator: "channel", operand: String(GENERAL) },
          { operator: "topic", operand: "dinner" },
        ],
        ME,
      );
      dinner.addFetched([], { oldest: true, newest: true });
      applyAll(state, [MORNING[6]!]);
      expect(state.messages.value(102)!.subject).to.equal("dinner");
      expect(state.messages.value(102)!.last_moved_timestamp).to.equal(T + 2);
      expect(lunch.ids.value).to.deep.equal([101, 103]);
      expect(dinner.ids.value).to.deep.equal([102, 105]);
      expect(state.unread.idsIn({ streamId: GENERAL, topic: "dinner" })).to.deep.equal([102, 105]);
      expect(state.topics.forChannel(GENERAL).map((t) => t.name)).to.deep.equal(["dinner"]);
    });

    it("a channel move takes unread counts along, even of messages the client does not hold", function () {
      const state = loadedState(registerState());
      state.messages.put([streamMessage(104, { streamId: DESIGN, channelName: "design", topic: "specs" })]);
      applyAll(state, [
        {
          type: "update_message",
          user_id: IAGO,
          edit_timestamp: T,
          message_id: 104,
          message_ids: [101, 104],
          rendering_only: false,
          stream_name: "design",
          stream_id: DESIGN,
          new_stream_id: SOCIAL,
          propagate_mode: "change_all",
          orig_subject: "specs",
          subject: "plans",
          topic_links: [],
          flags: [],
        },
      ]);
      const moved = state.messages.value(104)!;
      expect([moved.stream_id, moved.display_recipient, moved.subject]).to.deep.equal([
        SOCIAL,
        "social",
        "plans",
      ]);
      expect(state.unread.idsIn({ streamId: SOCIAL, topic: "plans" })).to.deep.equal([101, 104]);
      expect(state.unread.channelCount(DESIGN)).to.equal(0);
      expect(state.unread.topicCount(GENERAL, "lunch")).to.equal(3);
    });
  });

  it("delete_message forgets the messages everywhere: store, lists, unread, starred", function () {
    const state = loadedState(registerState());
    state.messages.put([streamMessage(101, { flags: ["starred"] }), streamMessage(102)]);
    const general = state.lists.get([{ operator: "channel", operand: String(GENERAL) }], ME);
    general.addFetched([101, 102], { oldest: true, newest: true });
    applyAll(state, [
      {
        type: "delete_message",
        message_ids: [101, 102],
        message_type: "stream",
        stream_id: GENERAL,
        topic: "lunch",
      },
    ]);
    expect(state.messages.value(101)).to.equal(undefined);
    expect(general.ids.value).to.deep.equal([]);
    expect(state.unread.idsIn({ streamId: GENERAL })).to.deep.equal([103, 105]);
    expect(state.unread.mentionIds().sort()).to.deep.equal([106, 110]);
    expect(state.world.starredCount.value).to.equal(1);
    applyAll(state, [{ type: "delete_message", message_ids: [107], message_type: "private" }]);
    expect(state.unread.dmCount(String(OTHELLO))).to.equal(1);
  });

  describe("update_message_flags", function () {
    it("read: marks held messages read and uncounts them; `all` uncounts everything", function () {
      const state = loadedState(registerState());
      state.messages.put([streamMessage(101), directMessage(107)]);
      const unreadList = state.lists.get([{ operator: "is", operand: "unread" }], ME);
      unreadList.addFetched([101, 107], { oldest: true, newest: true });
      applyAll(state, [flagsEvent("add", "read", [101, 107])]);
      expect(state.messages.value(101)!.flags).to.deep.equal(["read"]);
      expect(state.unread.has(101) || state.unread.has(107)).to.equal(false);
      expect(unreadList.ids.value).to.deep.equal([]);
      applyAll(state, [flagsEvent("add", "read", [], { all: true })]);
      expect(state.unread.count).to.equal(0);
      expect(state.unread.mentionCount).to.equal(0);
    });

    it("unread again: counts the messages where message_details says they are", function () {
      const state = loadedState(registerState());
      state.messages.put([{ ...streamMessage(95, { topic: "Old times" }), flags: ["read"] }]);
      applyAll(state, [
        flagsEvent("remove", "read", [95, 96, 97], {
          message_details: {
            "95": { type: "stream", stream_id: GENERAL, topic: "Old times", unmuted_stream_msg: true },
            "96": { type: "private", user_ids: [], mentioned: true },
            "97": { type: "stream", stream_id: DESIGN, topic: "specs", unmuted_stream_msg: false },
          },
        }),
      ]);
      expect(state.messages.value(95)!.flags).to.deep.equal([]);
      expect(state.unread.idsIn({ streamId: GENERAL, topic: "old times" })).to.deep.equal([95]);
      expect(state.unread.idsIn({ dm: String(ME) })).to.deep.equal([96, 109]);
      expect(state.unread.idsIn({ streamId: DESIGN })).to.deep.equal([97, 104]);
      expect(state.unread.mentionIds()).to.include(96);
    });

    it("starred: counts stars added and removed, each message once", function () {
      const state = loadedState(registerState());
      expect(state.world.starredCount.value).to.equal(2);
      state.messages.put([streamMessage(102)]);
      applyAll(state, [flagsEvent("add", "starred", [102, 103])]);
      expect(state.world.starredCount.value).to.equal(4);
      expect(state.messages.value(102)!.flags).to.deep.equal(["starred"]);
      applyAll(state, [flagsEvent("remove", "starred", [101, 102])]);
      expect(state.world.starredCount.value).to.equal(2);
      expect(state.messages.value(102)!.flags).to.deep.equal([]);
      // Another tab starred it too: the same message is not counted twice.
      applyAll(state, [flagsEvent("add", "starred", [103])]);
      expect(state.world.starredCount.value).to.equal(2);
    });
  });

  it("reaction: adds and removes one person's emoji, never twice", function () {
    const state = loadedState(registerState());
    state.messages.put([streamMessage(101)]);
    const reaction = (
      op: "add" | "remove",
      userId: number,
      emoji = { emoji_name: "smile", emoji_code: "1f604", reaction_type: "unicode_emoji" },
    ): Unnumbered => ({
      type: "reaction",
      op,
      user_id: userId,
      user: { user_id: userId, email: `${userId}@zulip.test`, full_name: `User ${userId}` },
      message_id: 101,
      ...emoji,
    });
    const octopus = { emoji_name: "octopus", emoji_code: "1", reaction_type: "realm_emoji" };
    applyAll(state, [
      reaction("add", OTHELLO),
      reaction("add", OTHELLO),
      reaction("add", ME),
      reaction("add", ME, octopus),
    ]);
    expect(state.messages.value(101)!.reactions).to.deep.equal([
      { emoji_name: "smile", emoji_code: "1f604", reaction_type: "unicode_emoji", user_id: OTHELLO },
      { emoji_name: "smile", emoji_code: "1f604", reaction_type: "unicode_emoji", user_id: ME },
      { emoji_name: "octopus", emoji_code: "1", reaction_type: "realm_emoji", user_id: ME },
    ]);
    applyAll(state, [
      reaction("remove", OTHELLO),
      reaction("remove", OTHELLO),
      reaction("remove", ME, octopus),
    ]);
    expect(state.messages.value(101)!.reactions).to.deep.equal([
      { emoji_name: "smile", emoji_code: "1f604", reaction_type: "unicode_emoji", user_id: ME },
    ]);
    // A reaction to a message the client does not hold changes nothing.
    applyAll(state, [{ ...reaction("add", OTHELLO), message_id: 999 } as Unnumbered]);
    expect(state.messages.value(999)).to.equal(undefined);
  });

  it("typing: start and stop in a topic and in a DM; the user's own typing is not shown", function () {
    const state = loadedState(registerState());
    const othello = { user_id: OTHELLO, email: "othello@zulip.test" };
    const me = { user_id: ME, email: "hamlet@zulip.test" };
    const cordelia = { user_id: CORDELIA, email: "cordelia@zulip.test" };
    applyAll(state, [
      {
        type: "typing",
        message_type: "stream",
        op: "start",
        sender: othello,
        stream_id: GENERAL,
        topic: "Lunch",
      },
      { type: "typing", message_type: "direct", op: "start", sender: othello, recipients: [me, othello] },
      {
        type: "typing",
        message_type: "direct",
        op: "start",
        sender: cordelia,
        recipients: [me, othello, cordelia],
      },
      { type: "typing", message_type: "stream", op: "start", sender: me, stream_id: GENERAL, topic: "lunch" },
      { type: "typing", message_type: "direct", op: "start", sender: me, recipients: [me, othello] },
    ]);
    expect(state.typing.who(streamPlace(GENERAL, "lunch"))).to.deep.equal([OTHELLO]);
    expect(state.typing.who(dmPlace("5"))).to.deep.equal([OTHELLO]);
    expect(state.typing.who(dmPlace("5,6"))).to.deep.equal([CORDELIA]);
    const expiry = state.typing.typists.value.get(dmPlace("5,6"))!.get(CORDELIA)!;
    applyAll(state, [
      {
        type: "typing",
        message_type: "stream",
        op: "stop",
        sender: othello,
        stream_id: GENERAL,
        topic: "lunch",
      },
      { type: "typing", message_type: "direct", op: "stop", sender: othello, recipients: [me, othello] },
    ]);
    expect(state.typing.who(streamPlace(GENERAL, "lunch"))).to.deep.equal([]);
    expect(state.typing.who(dmPlace("5"))).to.deep.equal([]);
    // Notices expire when no "still typing" follows (the realm's expiry period).
    state.typing.expire(expiry - 1);
    expect(state.typing.who(dmPlace("5,6"))).to.deep.equal([CORDELIA]);
    state.typing.expire(expiry);
    expect(state.typing.who(dmPlace("5,6"))).to.deep.equal([]);
  });

  describe("subscription", function () {
    it("update: in_home_view is is_muted turned around; other properties as they are", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        { type: "subscription", op: "update", property: "in_home_view", value: true, stream_id: DESIGN },
        { type: "subscription", op: "update", property: "pin_to_top", value: true, stream_id: GENERAL },
        { type: "subscription", op: "update", property: "color", value: "#c2c2c2", stream_id: GENERAL },
        { type: "subscription", op: "update", property: "is_muted", value: true, stream_id: GENERAL },
      ]);
      const subs = state.world.subscriptions.value;
      expect(subs.get(DESIGN)!.is_muted).to.equal(false);
      expect(subs.get(GENERAL)).to.include({ pin_to_top: true, color: "#c2c2c2", is_muted: true });
      expect(state.world.isTopicMuted(GENERAL, "lunch")).to.equal(true);
      expect(state.world.sidebarChannels.value.map((s) => s.name)).to.deep.equal([
        "general",
        "social",
        "design",
      ]);
    });

    it("remove: the channel stays known, unsubscribed, and its unread messages are no longer counted", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        { type: "subscription", op: "remove", subscriptions: [{ name: "general", stream_id: GENERAL }] },
      ]);
      expect(state.world.subscriptions.value.has(GENERAL)).to.equal(false);
      expect(state.world.channels.value.get(GENERAL)!.name).to.equal("general");
      expect(state.unread.channelCount(GENERAL)).to.equal(0);
      expect(state.unread.mentionIds().sort()).to.deep.equal([106, 110]);
    });

    it("peer_add and peer_remove change subscriber counts (and lists, where known)", function () {
      const state = loadedState(
        registerState({ never_subscribed: [channel(ANNOUNCE, "announce", { subscriber_count: 5 })] }),
      );
      state.world.updateSubscription(SOCIAL, { subscribers: [ME, OTHELLO] });
      applyAll(state, [
        {
          type: "subscription",
          op: "peer_add",
          stream_ids: [GENERAL, SOCIAL, ANNOUNCE],
          user_ids: [POLONIUS, CORDELIA],
        },
        { type: "subscription", op: "peer_remove", stream_ids: [SOCIAL], user_ids: [OTHELLO] },
      ]);
      const { channels, subscriptions } = state.world;
      expect(subscriptions.value.get(GENERAL)!.subscriber_count).to.equal(5);
      expect(channels.value.get(GENERAL)!.subscriber_count).to.equal(5);
      expect(channels.value.get(ANNOUNCE)!.subscriber_count).to.equal(7);
      expect(subscriptions.value.get(SOCIAL)!.subscribers).to.deep.equal([ME, POLONIUS, CORDELIA]);
      expect(subscriptions.value.get(SOCIAL)!.subscriber_count).to.equal(3);
    });
  });

  describe("stream", function () {
    it("update: a property, with the fields that come along (rendered description, history, web-public)", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        {
          type: "stream",
          op: "update",
          stream_id: GENERAL,
          name: "general",
          property: "name",
          value: "town square",
        },
        {
          type: "stream",
          op: "update",
          stream_id: OLD,
          name: "old",
          property: "invite_only",
          value: true,
          history_public_to_subscribers: false,
          is_web_public: false,
        },
        {
          type: "stream",
          op: "update",
          stream_id: SOCIAL,
          name: "social",
          property: "is_archived",
          value: true,
        },
      ]);
      const { channels, subscriptions } = state.world;
      expect(channels.value.get(GENERAL)!.name).to.equal("town square");
      expect(subscriptions.value.get(GENERAL)!.name).to.equal("town square");
      expect(state.world.channelByName("Town Square")!.stream_id).to.equal(GENERAL);
      expect(channels.value.get(OLD)).to.include({ invite_only: true, history_public_to_subscribers: false });
      expect(state.world.sidebarChannels.value.map((s) => s.name)).to.deep.equal(["design", "town square"]);
    });

    it("create and delete: channels appear and disappear, with their subscriptions and unread counts", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        { type: "stream", op: "create", streams: [NEW_CHANNEL as unknown as Record<string, unknown>] },
        { type: "stream", op: "delete", streams: [{ stream_id: SOCIAL }], stream_ids: [SOCIAL] },
      ]);
      expect(state.world.channelName(16)).to.equal("new one");
      expect(state.world.channels.value.has(SOCIAL)).to.equal(false);
      expect(state.world.subscriptions.value.has(SOCIAL)).to.equal(false);
      expect(state.unread.channelsWithUnreads()).to.not.include(SOCIAL);
      expect(state.unread.mentionIds().sort()).to.deep.equal([102, 110]);
    });
  });

  describe("realm_user", function () {
    it("update: names, emails, avatars, profile fields and roles (with the flags a role implies)", function () {
      const state = loadedState(registerState());
      applyAll(state, [
        { type: "realm_user", op: "update", person: { user_id: OTHELLO, role: 100 } },
        { type: "realm_user", op: "update", person: { user_id: CORDELIA, new_email: "queen@zulip.test" } },
        {
          type: "realm_user",
          op: "update",
          person: { user_id: CORDELIA, delivery_email: "cordelia@lear.test" },
        },
        {
          type: "realm_user",
          op: "update",
          person: {
            user_id: IAGO,
            avatar_source: "U",
            avatar_url: "/user_avatars/2/abc.png",
            avatar_url_medium: "/user_avatars/2/abc-medium.png",
            avatar_version: 2,
          },
        },
        {
          type: "realm_user",
          op: "update",
          person: {
            user_id: IAGO,
            custom_profile_field: { id: 3, value: "Venice", rendered_value: "<p>Venice</p>" },
          },
        },
        { type: "realm_user", op: "update", person: { user_id: POLONIUS, role: 400 } },
      ]);
      const users = state.world.users.value;
      expect(users.get(OTHELLO)).to.include({ role: 100, is_owner: true, is_admin: true, is_guest: false });
      expect(users.get(POLONIUS)).to.include({
        role: 400,
        is_owner: false,
        is_admin: false,
        is_guest: false,
      });
      expect(users.get(CORDELIA)).to.include({
        email: "queen@zulip.test",
        delivery_email: "cordelia@lear.test",
      });
      expect(state.world.userByEmail("queen@zulip.test")!.user_id).to.equal(CORDELIA);
      expect(users.get(IAGO)!.avatar_url).to.equal("/user_avatars/2/abc.png");
      expect(users.get(IAGO)!.profile_data).to.deep.equal({
        "3": { value: "Venice", rendered_value: "<p>Venice</p>" },
      });
      applyAll(state, [
        {
          type: "realm_user",
          op: "update",
          person: { user_id: IAGO, custom_profile_field: { id: 3, value: null } },
        },
      ]);
      expect(state.world.users.value.get(IAGO)!.profile_data).to.deep.equal({});
    });

    it("the user's own role changes what they may do; deactivation and Zulip's old remove", function () {
      const state = loadedState(registerState());
      applyAll(state, [{ type: "realm_user", op: "update", person: { user_id: ME, role: 200 } }]);
      expect(state.world.role.value).to.equal(200);
      expect(state.world.isAdmin.value).to.equal(true);
      applyAll(state, [
        { type: "realm_user", op: "update", person: { user_id: OTHELLO, is_active: false } },
        { type: "realm_user", op: "remove", person: { user_id: CORDELIA, full_name: "Cordelia Dane" } },
        { type: "realm_user", op: "update", person: { user_id: 9, is_active: true } },
      ]);
      const users = state.world.users.value;
      expect([OTHELLO, CORDELIA, 9].map((id) => users.get(id)!.is_active)).to.deep.equal([
        false,
        false,
        true,
      ]);
    });
  });

  it("user_status: sets what is given, clears what is emptied, forgets an empty status", function () {
    const state = loadedState(registerState());
    applyAll(state, [
      { type: "user_status", user_id: OTHELLO, status_text: "" },
      { type: "user_status", user_id: IAGO, away: true },
      { type: "user_status", user_id: IAGO, status_text: "plotting" },
    ]);
    expect(state.world.statuses.value.get(OTHELLO)).to.deep.equal({
      emoji_name: "car",
      emoji_code: "1f697",
      reaction_type: "unicode_emoji",
    });
    expect(state.world.statuses.value.get(IAGO)).to.deep.equal({ away: true, status_text: "plotting" });
    applyAll(state, [
      { type: "user_status", user_id: OTHELLO, emoji_name: "", emoji_code: "", reaction_type: "" },
      { type: "user_status", user_id: IAGO, away: false },
    ]);
    expect(state.world.statuses.value.has(OTHELLO)).to.equal(false);
    expect(state.world.statuses.value.get(IAGO)).to.deep.equal({ status_text: "plotting" });
  });

  it("user_topic, muted_users, presence, user_settings: replace what they name", function () {
    const state = loadedState(registerState());
    applyAll(state, [
      { type: "user_topic", stream_id: GENERAL, topic_name: "Lunch", last_updated: T, visibility_policy: 1 },
      { type: "user_topic", stream_id: DESIGN, topic_name: "specs", last_updated: T, visibility_policy: 2 },
      { type: "muted_users", muted_users: [{ id: OTHELLO, timestamp: T }] },
      { type: "presence", presences: { [String(OTHELLO)]: { active_timestamp: T, idle_timestamp: T + 5 } } },
      { type: "user_settings", op: "update", property: "emojiset", value: "text" },
    ]);
    const { world } = state;
    expect(world.isTopicMuted(GENERAL, "lunch")).to.equal(true);
    expect(world.isTopicMuted(DESIGN, "specs")).to.equal(false);
    expect(world.isTopicMuted(DESIGN, "other")).to.equal(true);
    expect([...world.mutedUsers.value]).to.deep.equal([OTHELLO]);
    expect(world.presence.value.get(OTHELLO)).to.deep.equal({ active_timestamp: T, idle_timestamp: T + 5 });
    expect(world.presence.value.get(IAGO)!.active_timestamp).to.be.a("number");
    expect(world.settings.value.emojiset).to.equal("text");
    expect(world.settings.value.twenty_four_hour_time).to.equal(false);
  });

  it("realm_emoji and realm: the emoji set, and realm settings by either op", function () {
    const state = loadedState(registerState());
    expect(state.world.realm.value.emailChangesDisabled).to.equal(false);
    applyAll(state, [
      { type: "realm_emoji", op: "update", realm_emoji: EMOJI },
      { type: "realm", op: "update", property: "name", value: "Denmark" },
      { type: "realm", op: "update", property: "mandatory_topics", value: true },
      { type: "realm", op: "update", property: "email_changes_disabled", value: true },
      {
        type: "realm",
        op: "update_dict",
        property: "default",
        data: {
          message_content_delete_limit_seconds: 3600,
          enable_read_receipts: true,
          description: "<p>Rotten</p>",
        },
      },
      {
        type: "realm",
        op: "update_dict",
        property: "icon",
        data: { icon_url: "/icon.png", icon_source: "U" },
      },
    ]);
    expect([...state.world.customEmoji.value.keys()].sort()).to.deep.equal(["octopus", "tada"]);
    expect(state.world.realm.value).to.include({
      name: "Denmark",
      mandatoryTopics: true,
      emailChangesDisabled: true,
      deleteLimitSecs: 3600,
      readReceipts: true,
      description: "<p>Rotten</p>",
      iconUrl: "/icon.png",
    });
  });

  it("user_group: groups added, changed, with members and subgroups added and removed, and removed", function () {
    const state = loadedState(registerState());
    applyAll(state, [
      { type: "user_group", op: "add_members", group_id: 20, user_ids: [CORDELIA, OTHELLO] },
      { type: "user_group", op: "remove_members", group_id: 20, user_ids: [ME] },
      { type: "user_group", op: "add_subgroups", group_id: 20, direct_subgroup_ids: [1, 2] },
      { type: "user_group", op: "remove_subgroups", group_id: 20, direct_subgroup_ids: [1] },
      { type: "user_group", op: "update", group_id: 20, data: { name: "moor-fans" } },
      { type: "user_group", op: "remove", group_id: 1 },
    ]);
    const groups = state.world.groups.value;
    expect(groups.get(20)).to.include({ name: "moor-fans" });
    expect(groups.get(20)!.members).to.deep.equal([OTHELLO, CORDELIA]);
    expect(groups.get(20)!.direct_subgroup_ids).to.deep.equal([2]);
    expect(groups.has(1)).to.equal(false);
  });

  it("drafts: added, replaced and removed by ID", function () {
    const state = loadedState(registerState());
    applyAll(
      state,
      MORNING.filter((e) => e.type === "drafts"),
    );
    expect([...state.drafts.value.values()]).to.deep.equal([
      { id: 2, type: "private", to: [OTHELLO], topic: "", content: "psst, Othello", timestamp: T + 7 },
    ]);
  });

  it("events the client shows nothing of change nothing", function () {
    const state = loadedState(registerState());
    const before = observe(state);
    applyAll(state, [
      { type: "heartbeat" },
      { type: "restart", zulip_version: "11.0", immediate: false },
      { type: "other", whatever: 1 },
      { type: "muted_topics", muted_topics: [["design", "x", T]] },
    ]);
    expect(observe(state)).to.deep.equal(before);
  });

  it("load starts over: lists reset, topics forgotten, a new generation", function () {
    const state = new ClientState();
    state.load(registerState());
    const list = state.lists.get([{ operator: "channel", operand: String(GENERAL) }], ME);
    list.addFetched([101], { oldest: true, newest: true });
    state.topics.note(GENERAL, "lunch", 101);
    const generation = state.generation.value;
    state.load(registerState());
    expect(state.generation.value).to.equal(generation + 1);
    expect(list.ids.value).to.deep.equal([]);
    expect(list.foundNewest.value).to.equal(false);
    expect(state.topics.forChannel(GENERAL)).to.deep.equal([]);
  });
});

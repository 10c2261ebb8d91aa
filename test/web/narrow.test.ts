import { expect } from "chai";
import {
  apiNarrow,
  canonicalNarrow,
  dmKey,
  hashOf,
  isMentioned,
  matches,
  messageDmKey,
  narrowChannel,
  narrowDm,
  narrowKey,
  nearMessageId,
  type Narrow,
} from "../../src/web/model/narrow.js";
import { parseHash, type Term } from "../../src/web/model/hash.js";
import { World } from "../../src/web/model/world.js";
import {
  CORDELIA,
  DESIGN,
  GENERAL,
  IAGO,
  ME,
  OTHELLO,
  channel,
  directMessage,
  registerState,
  streamMessage,
} from "./fixtures.js";

function world(): World {
  const w = new World();
  w.load(
    registerState({
      never_subscribed: [
        channel(13, "announce"),
        // A channel whose name looks like the slug of a channel that does not exist.
        channel(30, "2024-plans"),
        channel(77, "v1.0 release"),
      ],
    }),
  );
  return w;
}

/** The terms a URL fragment gives, made canonical against Hamlet's world. */
const canonical = (hash: string) => {
  const view = parseHash(hash);
  if (view?.kind !== "narrow") throw new Error(`not a narrow: ${hash}`);
  return canonicalNarrow(view.terms, world());
};

describe("web client: narrows", function () {
  describe("canonicalNarrow", function () {
    it("turns channel slugs and old-style channel names into channel IDs", function () {
      expect(canonical("#narrow/channel/10-general/topic/Lunch.20plans")).to.deep.equal([
        { operator: "channel", operand: "10" },
        { operator: "topic", operand: "Lunch plans" },
      ]);
      // The slug's name part does not matter (the channel was renamed since).
      expect(canonical("#narrow/stream/11-old-name")).to.deep.equal([{ operator: "channel", operand: "11" }]);
      expect(canonical("#narrow/stream/11")).to.deep.equal([{ operator: "channel", operand: "11" }]);
      // Zulip's old links name the channel, case-insensitively.
      expect(canonical("#narrow/stream/Design")).to.deep.equal([{ operator: "channel", operand: "11" }]);
      expect(canonical("#narrow/-stream/announce")).to.deep.equal([
        { operator: "channel", operand: "13", negated: true },
      ]);
      expect(canonical("#narrow/channel/v1.2E0.20release")).to.deep.equal([
        { operator: "channel", operand: "77" },
      ]);
      // A name nobody knows stays a name (the server says what it makes of it).
      expect(canonical("#narrow/channel/nowhere")).to.deep.equal([
        { operator: "channel", operand: "nowhere" },
      ]);
      // An ID nobody knows stays an ID (a channel the user cannot see, the server will say).
      expect(canonical("#narrow/channel/999-secret")).to.deep.equal([
        { operator: "channel", operand: "999" },
      ]);
    });

    it("prefers a known channel's ID, then a channel's name, for a slug-like name (Zulip's slug_to_stream_id)", function () {
      // No channel 2024: the link names the channel "2024-plans".
      expect(canonical("#narrow/channel/2024-plans")).to.deep.equal([{ operator: "channel", operand: "30" }]);
      expect(canonicalNarrow([{ operator: "channel", operand: "10-2024-plans" }], world())).to.deep.equal([
        { operator: "channel", operand: "10" },
      ]);
    });

    it("turns people's slugs and emails into IDs; dm leaves the user out, as dmKey", function () {
      expect(canonical("#narrow/dm/5-Othello-Dane")).to.deep.equal([{ operator: "dm", operand: "5" }]);
      expect(canonical("#narrow/dm/6,5-group")).to.deep.equal([{ operator: "dm", operand: "5,6" }]);
      // A group link that lists the user too (Zulip's do): the user is left out.
      expect(canonical("#narrow/dm/4,5,6-group")).to.deep.equal([{ operator: "dm", operand: "5,6" }]);
      // Self-DM: the user alone.
      expect(canonical("#narrow/dm/4-Hamlet-Dane")).to.deep.equal([{ operator: "dm", operand: "4" }]);
      // Old-style links with emails (pm-with), case-insensitive, with or without the user.
      expect(canonical("#narrow/pm-with/OTHELLO.40zulip.2Etest")).to.deep.equal([
        { operator: "dm", operand: "5" },
      ]);
      expect(canonical("#narrow/pm-with/cordelia.40zulip.2Etest.2Cothello.40zulip.2Etest")).to.deep.equal([
        { operator: "dm", operand: "5,6" },
      ]);
      expect(canonical("#narrow/group-pm-with/5-Othello")).to.deep.equal([
        { operator: "dm-including", operand: "5" },
      ]);
      // Someone unknown: the operand stays as written.
      expect(canonical("#narrow/dm/nobody.40zulip.2Etest")).to.deep.equal([
        { operator: "dm", operand: "nobody@zulip.test" },
      ]);
    });

    it("turns sender slugs, emails and `me` into one user's ID", function () {
      expect(canonical("#narrow/sender/5-Othello-Dane")).to.deep.equal([
        { operator: "sender", operand: "5" },
      ]);
      expect(canonical("#narrow/sender/iago.40zulip.2Etest")).to.deep.equal([
        { operator: "sender", operand: String(IAGO) },
      ]);
      expect(canonical("#narrow/sender/me")).to.deep.equal([{ operator: "sender", operand: String(ME) }]);
      expect(canonical("#narrow/-sender/me")).to.deep.equal([
        { operator: "sender", operand: String(ME), negated: true },
      ]);
      expect(canonical("#narrow/sender/ghost.40zulip.2Etest")).to.deep.equal([
        { operator: "sender", operand: "ghost@zulip.test" },
      ]);
    });

    it("keeps topic and search operands as written and lower-cases the others", function () {
      expect(canonical("#narrow/is/Starred/has/Link/search/Hello.20World/topic/MiXed")).to.deep.equal([
        { operator: "is", operand: "starred" },
        { operator: "has", operand: "link" },
        { operator: "search", operand: "Hello World" },
        { operator: "topic", operand: "MiXed" },
      ]);
    });
  });

  describe("apiNarrow", function () {
    it("gives IDs as numbers, DM partners as a list, and leaves out near and with", function () {
      const narrow: Narrow = [
        { operator: "channel", operand: "10" },
        { operator: "topic", operand: "lunch" },
        { operator: "sender", operand: "5", negated: true },
        { operator: "near", operand: "345" },
        { operator: "with", operand: "346" },
        { operator: "search", operand: "12" },
        { operator: "id", operand: "347" },
      ];
      expect(apiNarrow(narrow)).to.deep.equal([
        { operator: "channel", operand: 10 },
        { operator: "topic", operand: "lunch" },
        { operator: "sender", operand: 5, negated: true },
        { operator: "search", operand: "12" },
        { operator: "id", operand: 347 },
      ]);
      expect(apiNarrow([{ operator: "dm", operand: "5,6" }])).to.deep.equal([
        { operator: "dm", operand: [5, 6] },
      ]);
      expect(apiNarrow([{ operator: "dm", operand: "4" }])).to.deep.equal([{ operator: "dm", operand: [4] }]);
      // Unresolved names and emails go as strings, which the server resolves (or refuses).
      expect(apiNarrow([{ operator: "channel", operand: "nowhere" }])).to.deep.equal([
        { operator: "channel", operand: "nowhere" },
      ]);
      expect(apiNarrow([{ operator: "dm", operand: "ghost@zulip.test" }])).to.deep.equal([
        { operator: "dm", operand: "ghost@zulip.test" },
      ]);
    });

    it("gives dm-including one user per term: the API takes one ID, not a list", function () {
      // Zulip's narrow parameter: dm-including's operand is an integer or a string.
      expect(apiNarrow([{ operator: "dm-including", operand: "5" }])).to.deep.equal([
        { operator: "dm-including", operand: 5 },
      ]);
      expect(apiNarrow([{ operator: "dm-including", operand: "5,6" }])).to.deep.equal([
        { operator: "dm-including", operand: 5 },
        { operator: "dm-including", operand: 6 },
      ]);
    });
  });

  it("nearMessageId is the message of near, with or id (not negated), else null", function () {
    expect(
      nearMessageId([
        { operator: "channel", operand: "10" },
        { operator: "near", operand: "345" },
      ]),
    ).to.equal(345);
    expect(nearMessageId([{ operator: "with", operand: "12" }])).to.equal(12);
    expect(nearMessageId([{ operator: "id", operand: "7" }])).to.equal(7);
    expect(nearMessageId([{ operator: "id", operand: "7", negated: true }])).to.equal(null);
    expect(nearMessageId([{ operator: "near", operand: "newest" }])).to.equal(null);
    expect(nearMessageId([])).to.equal(null);
  });

  describe("matches", function () {
    const inGeneral = streamMessage(201, { topic: "Lunch", senderId: OTHELLO, flags: ["read", "starred"] });
    const inDesign = streamMessage(202, {
      streamId: DESIGN,
      channelName: "design",
      topic: "✔ specs",
      senderId: ME,
      flags: ["mentioned"],
    });
    const toMe = directMessage(203, { to: [ME], senderId: OTHELLO, flags: [] });
    const fromMeToOthello = directMessage(204, { to: [OTHELLO], senderId: ME, flags: ["read"] });
    const group = directMessage(205, {
      to: [ME, CORDELIA],
      senderId: OTHELLO,
      flags: ["wildcard_mentioned"],
    });
    const self = directMessage(206, { to: [ME], senderId: ME, flags: ["read"] });
    const all = [inGeneral, inDesign, toMe, fromMeToOthello, group, self];

    /** The messages a narrow takes (true), leaves (false) or cannot tell (null), by ID. */
    const verdicts = (narrow: Term[]) => Object.fromEntries(all.map((m) => [m.id, matches(narrow, m, ME)]));
    const only = (narrow: Term[], ...ids: number[]) =>
      expect(verdicts(narrow), JSON.stringify(narrow)).to.deep.equal(
        Object.fromEntries(all.map((m) => [m.id, ids.includes(m.id)])),
      );

    it("matches every message with no terms (the combined feed)", function () {
      only([], 201, 202, 203, 204, 205, 206);
    });

    it("matches channel and topic (case-insensitively), and their negations", function () {
      only([{ operator: "channel", operand: String(GENERAL) }], 201);
      only([{ operator: "channel", operand: String(GENERAL), negated: true }], 202, 203, 204, 205, 206);
      only(
        [
          { operator: "channel", operand: String(GENERAL) },
          { operator: "topic", operand: "lunch" },
        ],
        201,
      );
      only([{ operator: "topic", operand: "LUNCH" }], 201);
      only([{ operator: "topic", operand: "lunch", negated: true }], 202, 203, 204, 205, 206);
      // An unresolved channel name matches nothing the client holds.
      only([{ operator: "channel", operand: "general" }]);
    });

    it("matches dm by conversation (self-DM included) and dm-including by participant", function () {
      only([{ operator: "dm", operand: String(OTHELLO) }], 203, 204);
      only([{ operator: "dm", operand: `${OTHELLO},${CORDELIA}` }], 205);
      only([{ operator: "dm", operand: String(ME) }], 206);
      only([{ operator: "dm", operand: String(OTHELLO), negated: true }], 201, 202, 205, 206);
      only([{ operator: "dm-including", operand: String(OTHELLO) }], 203, 204, 205);
      only([{ operator: "dm-including", operand: `${OTHELLO},${CORDELIA}` }], 205);
      only([{ operator: "dm-including", operand: String(ME) }], 203, 204, 205, 206);
    });

    it("matches sender, id, and is:dm/private/starred/mentioned/unread/resolved", function () {
      only([{ operator: "sender", operand: String(ME) }], 202, 204, 206);
      only([{ operator: "sender", operand: String(ME), negated: true }], 201, 203, 205);
      only([{ operator: "id", operand: "203" }], 203);
      only([{ operator: "is", operand: "dm" }], 203, 204, 205, 206);
      only([{ operator: "is", operand: "private" }], 203, 204, 205, 206);
      only([{ operator: "is", operand: "starred" }], 201);
      only([{ operator: "is", operand: "mentioned" }], 202, 205);
      only([{ operator: "is", operand: "unread" }], 202, 203, 205);
      only([{ operator: "is", operand: "unread", negated: true }], 201, 204, 206);
      only([{ operator: "is", operand: "resolved" }], 202);
      // near and with only say where to open.
      only(
        [
          { operator: "dm", operand: String(OTHELLO) },
          { operator: "near", operand: "1" },
        ],
        203,
        204,
      );
      only([{ operator: "with", operand: "1" }], 201, 202, 203, 204, 205, 206);
    });

    it("gives null where only the server can tell (search, has, unknown is:), negated or not", function () {
      for (const term of [
        { operator: "search", operand: "lunch" },
        { operator: "has", operand: "link" },
        { operator: "is", operand: "followed" },
        { operator: "channels", operand: "public" },
      ]) {
        expect(new Set(Object.values(verdicts([term]))), term.operator).to.deep.equal(new Set([null]));
        expect(new Set(Object.values(verdicts([{ ...term, negated: true }])))).to.deep.equal(new Set([null]));
      }
      // A term that rules a message out decides, whatever the server would say of the rest.
      expect(
        verdicts([
          { operator: "search", operand: "lunch" },
          { operator: "channel", operand: String(GENERAL) },
        ]),
      ).to.deep.equal({ 201: null, 202: false, 203: false, 204: false, 205: false, 206: false });
    });
  });

  it("narrowChannel and narrowDm name the one channel (and topic) or conversation of a view", function () {
    expect(narrowChannel([{ operator: "channel", operand: "10" }])).to.deep.equal({
      streamId: 10,
      topic: null,
    });
    expect(
      narrowChannel([
        { operator: "channel", operand: "10" },
        { operator: "topic", operand: "Lunch" },
      ]),
    ).to.deep.equal({ streamId: 10, topic: "Lunch" });
    expect(narrowChannel([{ operator: "channel", operand: "10", negated: true }])).to.equal(null);
    expect(narrowChannel([{ operator: "channel", operand: "general" }])).to.equal(null);
    expect(narrowChannel([{ operator: "is", operand: "starred" }])).to.equal(null);
    expect(narrowDm([{ operator: "dm", operand: "5,6" }])).to.deep.equal([5, 6]);
    expect(narrowDm([{ operator: "dm", operand: "5", negated: true }])).to.equal(null);
    expect(narrowDm([{ operator: "dm", operand: "ghost@zulip.test" }])).to.equal(null);
    expect(narrowDm([{ operator: "dm-including", operand: "5" }])).to.equal(null);
  });

  it("dmKey and messageDmKey name a conversation by its other people, or the user alone", function () {
    expect(dmKey([ME, OTHELLO], ME)).to.equal("5");
    expect(dmKey([CORDELIA, ME, OTHELLO, OTHELLO], ME)).to.equal("5,6");
    expect(dmKey([ME], ME)).to.equal("4");
    expect(dmKey([], ME)).to.equal("4");
    expect(dmKey([12, 3], ME)).to.equal("3,12");
    expect(messageDmKey(directMessage(1, { to: [ME], senderId: OTHELLO }), ME)).to.equal("5");
    expect(messageDmKey(directMessage(2, { to: [OTHELLO], senderId: ME }), ME)).to.equal("5");
    expect(messageDmKey(directMessage(3, { to: [ME], senderId: ME }), ME)).to.equal("4");
    expect(messageDmKey(directMessage(4, { to: [ME, CORDELIA], senderId: OTHELLO }), ME)).to.equal("5,6");
  });

  it("isMentioned counts direct, channel, topic and (old) wildcard mentions", function () {
    expect(isMentioned(["mentioned"])).to.equal(true);
    expect(isMentioned(["read", "stream_wildcard_mentioned"])).to.equal(true);
    expect(isMentioned(["topic_wildcard_mentioned"])).to.equal(true);
    expect(isMentioned(["wildcard_mentioned"])).to.equal(true);
    expect(isMentioned(["read", "starred", "has_alert_word"])).to.equal(false);
  });

  it("hashOf writes the canonical narrow with slugs, which reads back to the same narrow", function () {
    const w = world();
    const cases: Array<[Narrow, string]> = [
      [
        [
          { operator: "channel", operand: "10" },
          { operator: "topic", operand: "lunch plans" },
        ],
        "#narrow/channel/10-general/topic/lunch.20plans",
      ],
      [[{ operator: "dm", operand: "5" }], "#narrow/dm/5-Othello-Dane"],
      [[{ operator: "dm", operand: "5,6" }], "#narrow/dm/5,6-group"],
      [[{ operator: "sender", operand: "2", negated: true }], "#narrow/-sender/2-Iago-Dane"],
      [[{ operator: "channel", operand: "77" }], "#narrow/channel/77-v1.2E0-release"],
      [[{ operator: "is", operand: "starred" }], "#narrow/is/starred"],
    ];
    for (const [narrow, hash] of cases) {
      expect(hashOf(narrow, w)).to.equal(hash);
      expect(canonical(hash)).to.deep.equal(narrow);
    }
    // A channel the client does not know is still linked by ID.
    expect(hashOf([{ operator: "channel", operand: "999" }], w)).to.equal("#narrow/channel/999-unknown");
  });

  it("narrowKey tells narrows apart by operator, operand and negation", function () {
    const a = narrowKey([{ operator: "channel", operand: "10" }]);
    expect(narrowKey([{ operator: "channel", operand: "10" }])).to.equal(a);
    expect(narrowKey([{ operator: "channel", operand: "10", negated: true }])).to.not.equal(a);
    expect(narrowKey([{ operator: "channel", operand: "11" }])).to.not.equal(a);
    expect(narrowKey([])).to.equal("[]");
  });
});

import { expect } from "chai";
import {
  channelSlug,
  decodeHashComponent,
  dmSlug,
  encodeHashComponent,
  narrowHash,
  parseHash,
  slugChannelId,
  slugUserIds,
  viewHash,
  type Term,
  type View,
} from "../../src/web/model/hash.js";

/** The URL fragments of the web client (src/web/model/hash.ts), with Zulip's own cases. */
describe("web client: URL fragments", function () {
  describe("encodeHashComponent / decodeHashComponent (Zulip's internal_url)", function () {
    // Zulip's web/tests/internal_url.test.cjs and hash_util.test.cjs.
    const CASES: Array<[string, string]> = [
      ["https://www.zulipexample.com", "https.3A.2F.2Fwww.2Ezulipexample.2Ecom"],
      ["testing 123", "testing.20123"],
      ["research & development", "research.20.26.20development"],
      ["stream-(with-brackets)", "stream-.28with-brackets.29"],
      // The characters encodeURIComponent leaves alone but Zulip's hashReplacements encode.
      ["it's!*", "it.27s.21.2A"],
      ["dot.dot", "dot.2Edot"],
      ["100%", "100.25"],
      ["café", "caf.C3.A9"],
      ["", ""],
    ];

    it("encodes as Zulip does (percent-encoding with `.` for `%`) and decodes back", function () {
      for (const [text, encoded] of CASES) {
        expect(encodeHashComponent(text), text).to.equal(encoded);
        expect(decodeHashComponent(encoded), encoded).to.equal(text);
      }
    });

    it("gives null for a component that does not decode (a hand-typed link)", function () {
      // A truncated UTF-8 sequence, a literal dot before hex digits, a dangling escape.
      expect(decodeHashComponent(".E0.A4.A")).to.equal(null);
      expect(decodeHashComponent("foo.bar")).to.equal(null);
      expect(decodeHashComponent("100.2")).to.equal(null);
    });
  });

  describe("channelSlug", function () {
    it("is the ID and the name with dashes for spaces, encoded (Zulip's encode_stream_id)", function () {
      expect(channelSlug(123, "onetwo three")).to.equal("123-onetwo-three");
      expect(channelSlug(123, "a test stream")).to.equal("123-a-test-stream");
      expect(channelSlug(123, "stream (with brackets)")).to.equal("123-stream-.28with-brackets.29");
      expect(channelSlug(1, "test stream autocomplete")).to.equal("1-test-stream-autocomplete");
      expect(channelSlug(1, "books.2C film.2C tv.2C and games")).to.equal(
        "1-books.2E2C-film.2E2C-tv.2E2C-and-games",
      );
      expect(channelSlug(99, "frontend")).to.equal("99-frontend");
    });

    it("falls back to the bare ID where the encoded name would not help (Zulip's encode_slug)", function () {
      // Each encodes to far more than it says: more than 10 characters longer, and 1.5 times as long.
      expect(channelSlug(1, "精选 - 译文")).to.equal("1");
      expect(channelSlug(1, "ビデオゲーム")).to.equal("1");
      expect(channelSlug(1, "goûta à l'œuf brûlé")).to.equal("1");
      // Just inside both limits (10 characters longer, under 1.5 times as long) it is still a slug;
      // two characters less of plain name tip the ratio.
      expect(channelSlug(7, "ñoño family reunion")).to.equal("7-.C3.B1o.C3.B1o-family-reunion");
      expect(channelSlug(7, "ñoño family reuni")).to.equal("7");
    });
  });

  describe("dmSlug", function () {
    it("is the sorted IDs and the person's name for one, `group` for several (Zulip's emails_to_slug)", function () {
      expect(dmSlug([15], "Hamlet")).to.equal("15-Hamlet");
      expect(dmSlug([15], "Hamlet of Denmark")).to.equal("15-Hamlet-of-Denmark");
      expect(dmSlug([7, 3])).to.equal("3,7-group");
      expect(dmSlug([7, 3], "ignored for a group")).to.equal("3,7-group");
      expect(dmSlug([15])).to.equal("15-user");
    });

    it('replaces runs of spaces, `"`, `%`, `/`, `<`, `>`, backquotes and control characters with one dash', function () {
      expect(dmSlug([3], 'Dr. "Who" <x>/y')).to.equal("3-Dr.-Who-x-y");
      expect(dmSlug([3], "100% `sure`\u0007")).to.equal("3-100-sure-");
    });
  });

  describe("parseHash", function () {
    const narrow = (hash: string) => {
      const view = parseHash(hash);
      expect(view, hash).to.not.equal(null);
      expect(view!.kind, hash).to.equal("narrow");
      return (view as Extract<View, { kind: "narrow" }>).terms;
    };

    it("names each view", function () {
      expect(parseHash("#inbox")).to.deep.equal({ kind: "inbox" });
      expect(parseHash("#recent")).to.deep.equal({ kind: "recent" });
      expect(parseHash("#recent_topics")).to.deep.equal({ kind: "recent" });
      expect(parseHash("#feed")).to.deep.equal({ kind: "narrow", terms: [] });
      expect(parseHash("#all_messages")).to.deep.equal({ kind: "narrow", terms: [] });
      expect(parseHash("#narrow")).to.deep.equal({ kind: "narrow", terms: [] });
      expect(parseHash("#settings/notifications")).to.deep.equal({
        kind: "settings",
        section: "notifications",
      });
      expect(parseHash("#settings")).to.deep.equal({ kind: "settings", section: "profile" });
      expect(parseHash("#organization/users")).to.deep.equal({ kind: "organization", section: "users" });
      expect(parseHash("#organization")).to.deep.equal({
        kind: "organization",
        section: "organization-profile",
      });
      expect(parseHash("#channels/all")).to.deep.equal({ kind: "channels", section: "all" });
      expect(parseHash("#channels")).to.deep.equal({ kind: "channels", section: "subscribed" });
      expect(parseHash("#channels/42/research.20.26.20development/general")).to.deep.equal({
        kind: "channels",
        section: "42",
      });
      // Without the leading #, as a link's fragment is sometimes handed over.
      expect(parseHash("inbox")).to.deep.equal({ kind: "inbox" });
    });

    it("gives null for no fragment and for unknown ones (the default view opens)", function () {
      expect(parseHash("")).to.equal(null);
      expect(parseHash("#")).to.equal(null);
      expect(parseHash("#drafts-of-something")).to.equal(null);
      expect(parseHash("#some/random/hash")).to.equal(null);
    });

    it("reads narrows with the current operator names", function () {
      expect(narrow("#narrow/channel/99-frontend/topic/testing.20123")).to.deep.equal([
        { operator: "channel", operand: "99-frontend" },
        { operator: "topic", operand: "testing 123" },
      ]);
      expect(narrow("#narrow/channel/12-general/topic/lunch/near/345")).to.deep.equal([
        { operator: "channel", operand: "12-general" },
        { operator: "topic", operand: "lunch" },
        { operator: "near", operand: "345" },
      ]);
      expect(narrow("#narrow/dm/3,7-group")).to.deep.equal([{ operator: "dm", operand: "3,7-group" }]);
      expect(narrow("#narrow/is/starred")).to.deep.equal([{ operator: "is", operand: "starred" }]);
      expect(narrow("#narrow/search/foo.20bar.2E")).to.deep.equal([
        { operator: "search", operand: "foo bar." },
      ]);
      expect(narrow("#narrow/sender/15-Hamlet/has/link")).to.deep.equal([
        { operator: "sender", operand: "15-Hamlet" },
        { operator: "has", operand: "link" },
      ]);
    });

    it("reads Zulip's older operator names as the current ones, negated or not", function () {
      expect(narrow("#narrow/stream/99-frontend")).to.deep.equal([
        { operator: "channel", operand: "99-frontend" },
      ]);
      expect(narrow("#narrow/-stream/99-frontend")).to.deep.equal([
        { operator: "channel", operand: "99-frontend", negated: true },
      ]);
      expect(narrow("#narrow/stream/99-frontend/subject/lunch")).to.deep.equal([
        { operator: "channel", operand: "99-frontend" },
        { operator: "topic", operand: "lunch" },
      ]);
      expect(narrow("#narrow/-subject/lunch")).to.deep.equal([
        { operator: "topic", operand: "lunch", negated: true },
      ]);
      expect(narrow("#narrow/pm-with/15-Hamlet")).to.deep.equal([{ operator: "dm", operand: "15-Hamlet" }]);
      expect(narrow("#narrow/group-pm-with/15-Hamlet")).to.deep.equal([
        { operator: "dm-including", operand: "15-Hamlet" },
      ]);
      expect(narrow("#narrow/streams/public")).to.deep.equal([{ operator: "channels", operand: "public" }]);
      expect(narrow("#narrow/-is/starred")).to.deep.equal([
        { operator: "is", operand: "starred", negated: true },
      ]);
    });

    it("accepts an empty topic, stops at an empty operator (a trailing slash), as Zulip's parse_narrow", function () {
      expect(narrow("#narrow/stream/99-frontend/topic/")).to.deep.equal([
        { operator: "channel", operand: "99-frontend" },
        { operator: "topic", operand: "" },
      ]);
      expect(narrow("#narrow/channel/99-frontend/")).to.deep.equal([
        { operator: "channel", operand: "99-frontend" },
      ]);
    });

    it("gives null for a malformed narrow: odd parts, an empty operand other than a topic, bad percent-encoding", function () {
      // Zulip's hash_util.test.cjs: ["narrow", "BOGUS"] and an empty `near` are not narrows.
      expect(parseHash("#narrow/BOGUS")).to.equal(null);
      expect(parseHash("#narrow/channel/99-frontend/topic")).to.equal(null);
      expect(parseHash("#narrow/stream/99-frontend/topic//near/")).to.equal(null);
      expect(parseHash("#narrow/channel/")).to.equal(null);
      expect(parseHash("#narrow/topic/.E0.A4.A")).to.equal(null);
      expect(parseHash("#narrow/search/100.2")).to.equal(null);
      expect(parseHash("#narrow/.E0/x")).to.equal(null);
    });

    it("takes people's slugs as they are (a name's dot is not an escape)", function () {
      // Zulip writes a DM slug unencoded (emails_to_slug) and reads its IDs without decoding.
      expect(narrow("#narrow/dm/3-Dr.-Watson")).to.deep.equal([{ operator: "dm", operand: "3-Dr.-Watson" }]);
      expect(narrow("#narrow/sender/3-J.R.R.-Tolkien")).to.deep.equal([
        { operator: "sender", operand: "3-J.R.R.-Tolkien" },
      ]);
      expect(narrow("#narrow/pm-with/3-Mr.-100.5")).to.deep.equal([
        { operator: "dm", operand: "3-Mr.-100.5" },
      ]);
      // Emails are still encoded operands.
      expect(narrow("#narrow/dm/iago.40zulip.2Etest")).to.deep.equal([
        { operator: "dm", operand: "iago@zulip.test" },
      ]);
    });
  });

  describe("narrowHash", function () {
    /** narrowHash writes `hash`, which parses back to the terms (or to `parsed`). */
    const roundTrip = (terms: Term[], hash: string, parsed: Term[] = terms) => {
      expect(narrowHash(terms)).to.equal(hash);
      expect(parseHash(hash)).to.deep.equal({ kind: "narrow", terms: parsed });
    };

    it("writes slugs as given and encodes other operands, and parses back to the same terms", function () {
      expect(narrowHash([])).to.equal("#feed");
      roundTrip(
        [
          { operator: "channel", operand: "12-general" },
          { operator: "topic", operand: "lunch plans" },
        ],
        "#narrow/channel/12-general/topic/lunch.20plans",
      );
      // A channel slug is written encoded (channelSlug) and read decoded; its ID is what counts.
      roundTrip(
        [
          { operator: "channel", operand: "123-stream-.28with-brackets.29" },
          { operator: "topic", operand: "a.b (c)" },
          { operator: "near", operand: "42" },
        ],
        "#narrow/channel/123-stream-.28with-brackets.29/topic/a.2Eb.20.28c.29/near/42",
        [
          { operator: "channel", operand: "123-stream-(with-brackets)" },
          { operator: "topic", operand: "a.b (c)" },
          { operator: "near", operand: "42" },
        ],
      );
      roundTrip([{ operator: "dm", operand: "3,7-group" }], "#narrow/dm/3,7-group");
      roundTrip([{ operator: "is", operand: "starred", negated: true }], "#narrow/-is/starred");
      roundTrip([{ operator: "search", operand: "100% sure!" }], "#narrow/search/100.25.20sure.21");
      roundTrip(
        [
          { operator: "channels", operand: "public" },
          { operator: "sender", operand: "15-Hamlet" },
        ],
        "#narrow/channels/public/sender/15-Hamlet",
      );
    });

    it("round-trips people's slugs whose names have dots, and unresolved names and emails", function () {
      roundTrip([{ operator: "dm", operand: "3-Dr.-Watson" }], "#narrow/dm/3-Dr.-Watson");
      roundTrip([{ operator: "sender", operand: "3-J.R.R.-Tolkien" }], "#narrow/sender/3-J.R.R.-Tolkien");
      // What the search box gives when a name or email is not known yet.
      roundTrip([{ operator: "dm", operand: "iago@zulip.test" }], "#narrow/dm/iago.40zulip.2Etest");
      roundTrip(
        [{ operator: "dm-including", operand: "a.b@x.org,c@y.org" }],
        "#narrow/dm-including/a.2Eb.40x.2Eorg.2Cc.40y.2Eorg",
      );
      roundTrip([{ operator: "channel", operand: "design team" }], "#narrow/channel/design.20team");
      roundTrip([{ operator: "channel", operand: "v1.0", negated: true }], "#narrow/-channel/v1.2E0");
      roundTrip([{ operator: "sender", operand: "me" }], "#narrow/sender/me");
    });
  });

  it("viewHash writes every view's fragment, which parseHash reads back", function () {
    const views: Array<[View, string]> = [
      [{ kind: "inbox" }, "#inbox"],
      [{ kind: "recent" }, "#recent"],
      [{ kind: "narrow", terms: [] }, "#feed"],
      [{ kind: "narrow", terms: [{ operator: "is", operand: "mentioned" }] }, "#narrow/is/mentioned"],
      [{ kind: "settings", section: "preferences" }, "#settings/preferences"],
      [{ kind: "organization", section: "users" }, "#organization/users"],
      [{ kind: "channels", section: "all" }, "#channels/all"],
    ];
    for (const [view, hash] of views) {
      expect(viewHash(view)).to.equal(hash);
      expect(parseHash(hash)).to.deep.equal(view);
    }
  });

  it("slugChannelId and slugUserIds read the IDs of slugs, null for names and emails", function () {
    expect(slugChannelId("12-general")).to.equal(12);
    expect(slugChannelId("12")).to.equal(12);
    expect(slugChannelId("general")).to.equal(null);
    expect(slugChannelId("12general")).to.equal(null);
    expect(slugUserIds("3,7-group")).to.deep.equal([3, 7]);
    expect(slugUserIds("15-Hamlet")).to.deep.equal([15]);
    expect(slugUserIds("15")).to.deep.equal([15]);
    expect(slugUserIds("hamlet@zulip.test")).to.equal(null);
  });
});

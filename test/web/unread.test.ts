import { expect } from "chai";
import { UnreadState } from "../../src/web/model/unread.js";
import { CORDELIA, DESIGN, GENERAL, ME, OTHELLO, SOCIAL, registerState } from "./fixtures.js";

function loaded(): UnreadState {
  const unread = new UnreadState();
  unread.load(registerState().unread_msgs, ME);
  return unread;
}

describe("web client: unread counts", function () {
  describe("load (register's unread_msgs)", function () {
    it("files channel messages by topic (case-insensitively), DMs by conversation, and mentions", function () {
      const unread = loaded();
      expect(unread.count).to.equal(11);
      expect(unread.allIds()).to.deep.equal([101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111]);
      expect(unread.mentionCount).to.equal(3);
      expect(unread.mentionIds().sort()).to.deep.equal([102, 106, 110]);
      // "Lunch" and "lunch" are one topic, named as first seen.
      expect(unread.topicCount(GENERAL, "lunch")).to.equal(4);
      expect(unread.topicCount(GENERAL, "LUNCH")).to.equal(4);
      expect(unread.topics(GENERAL)).to.deep.equal([{ topic: "Lunch", count: 4, maxId: 105 }]);
      expect(unread.channelCount(GENERAL)).to.equal(4);
      expect(unread.channelCount(DESIGN)).to.equal(1);
      expect(unread.channelsWithUnreads().sort()).to.deep.equal([GENERAL, DESIGN, SOCIAL]);
      // Othello, the user alone (self-DM), and the group with Othello and Cordelia.
      expect(unread.dmCount(String(OTHELLO))).to.equal(2);
      expect(unread.dmCount(String(ME))).to.equal(1);
      expect(unread.dmCount(`${OTHELLO},${CORDELIA}`)).to.equal(1);
      expect(unread.dms().sort((a, b) => a.maxId - b.maxId)).to.deep.equal([
        { key: "5", count: 2, maxId: 108 },
        { key: "4", count: 1, maxId: 109 },
        { key: "5,6", count: 1, maxId: 110 },
      ]);
      expect(unread.has(101)).to.equal(true);
      expect(unread.has(90)).to.equal(false);
    });

    it("leaves out muted topics from a channel's count when asked", function () {
      const unread = loaded();
      expect(unread.channelCount(SOCIAL)).to.equal(2);
      const skipped: string[] = [];
      const count = unread.channelCount(SOCIAL, (topic) => {
        skipped.push(topic);
        return topic === "muted gossip";
      });
      expect(count).to.equal(1);
      expect(skipped.sort()).to.deep.equal(["muted gossip", "party"]);
      expect(unread.channelCount(GENERAL, () => true)).to.equal(0);
      expect(unread.channelCount(999)).to.equal(0);
    });

    it("forgets what it held before", function () {
      const unread = loaded();
      unread.add(500, { kind: "dm", key: "7" }, true);
      unread.load(
        { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false },
        ME,
      );
      expect(unread.count).to.equal(0);
      expect(unread.mentionCount).to.equal(0);
      expect(unread.dms()).to.deep.equal([]);
      expect(unread.channelsWithUnreads()).to.deep.equal([]);
    });
  });

  it("idsIn lists a channel's, a topic's or a conversation's unread IDs, oldest first", function () {
    const unread = loaded();
    expect(unread.idsIn({ streamId: GENERAL })).to.deep.equal([101, 102, 103, 105]);
    expect(unread.idsIn({ streamId: GENERAL, topic: null })).to.deep.equal([101, 102, 103, 105]);
    expect(unread.idsIn({ streamId: GENERAL, topic: "LUNCH" })).to.deep.equal([101, 102, 103, 105]);
    expect(unread.idsIn({ streamId: SOCIAL })).to.deep.equal([106, 111]);
    expect(unread.idsIn({ streamId: SOCIAL, topic: "nothing" })).to.deep.equal([]);
    expect(unread.idsIn({ dm: "5" })).to.deep.equal([107, 108]);
    expect(unread.idsIn({ dm: "8" })).to.deep.equal([]);
  });

  describe("add, remove, move", function () {
    it("add counts a new unread message once; version changes only when something did", function () {
      const unread = loaded();
      const version = unread.version.value;
      unread.add(120, { kind: "stream", streamId: GENERAL, topic: "LUNCH" }, true);
      expect(unread.version.value).to.equal(version + 1);
      expect(unread.topicCount(GENERAL, "lunch")).to.equal(5);
      expect(unread.topics(GENERAL)).to.deep.equal([{ topic: "Lunch", count: 5, maxId: 120 }]);
      expect(unread.mentionCount).to.equal(4);
      // Already there: nothing changes, not even its place.
      unread.add(120, { kind: "dm", key: "5" }, false);
      expect(unread.version.value).to.equal(version + 1);
      expect(unread.dmCount("5")).to.equal(2);
      expect(unread.mentionCount).to.equal(4);
      unread.add(121, { kind: "stream", streamId: 40, topic: "new" }, false);
      expect(unread.channelsWithUnreads()).to.include(40);
      expect(unread.topics(40)).to.deep.equal([{ topic: "new", count: 1, maxId: 121 }]);
    });

    it("remove forgets read or deleted messages, and empty topics, channels and conversations", function () {
      const unread = loaded();
      const version = unread.version.value;
      unread.remove([104, 110, 999]);
      expect(unread.version.value).to.equal(version + 1);
      expect(unread.channelsWithUnreads()).to.not.include(DESIGN);
      expect(unread.topics(DESIGN)).to.deep.equal([]);
      expect(unread.dmCount("5,6")).to.equal(0);
      expect(unread.dms().map((d) => d.key)).to.not.include("5,6");
      expect(unread.mentionIds().sort()).to.deep.equal([102, 106]);
      unread.remove([999, 998]);
      expect(unread.version.value).to.equal(version + 1);
      // A topic emptied and filled again takes the new spelling.
      unread.remove([101, 102, 103, 105]);
      unread.add(130, { kind: "stream", streamId: GENERAL, topic: "LUNCH" }, false);
      expect(unread.topics(GENERAL)).to.deep.equal([{ topic: "LUNCH", count: 1, maxId: 130 }]);
    });

    it("move files channel messages under their new channel or topic, mentions kept", function () {
      const unread = loaded();
      unread.move([102, 105], { topic: "dinner" });
      expect(unread.topicCount(GENERAL, "lunch")).to.equal(2);
      expect(unread.topicCount(GENERAL, "dinner")).to.equal(2);
      unread.move([102, 103, 101], { streamId: DESIGN });
      expect(unread.idsIn({ streamId: DESIGN })).to.deep.equal([101, 102, 103, 104]);
      expect(unread.topics(DESIGN).sort((a, b) => a.maxId - b.maxId)).to.deep.equal([
        { topic: "dinner", count: 1, maxId: 102 },
        { topic: "Lunch", count: 2, maxId: 103 },
        { topic: "specs", count: 1, maxId: 104 },
      ]);
      expect(unread.idsIn({ streamId: GENERAL })).to.deep.equal([105]);
      unread.move([104], { streamId: SOCIAL, topic: "party" });
      expect(unread.idsIn({ streamId: SOCIAL, topic: "party" })).to.deep.equal([104, 106]);
      expect(unread.mentionIds().sort()).to.deep.equal([102, 106, 110]);
      // Direct messages and read messages do not move.
      const version = unread.version.value;
      unread.move([107, 999], { streamId: GENERAL, topic: "x" });
      expect(unread.dmCount("5")).to.equal(2);
      expect(unread.version.value).to.equal(version);
    });
  });

  describe("big sets", function () {
    // More than a function call's arguments can hold: spreading these into a call overflows the stack.
    const N = 200_000;
    const ids = Array.from({ length: N }, (_, i) => i + 1);

    it("loads, counts, lists and forgets 200,000 unread messages without overflowing the stack", function () {
      const DMS = 50_000;
      const unread = new UnreadState();
      unread.load(
        {
          pms: [{ other_user_id: OTHELLO, unread_message_ids: ids.slice(0, DMS) }],
          streams: [
            { stream_id: GENERAL, topic: "flood", unread_message_ids: ids.slice(DMS, N - 10) },
            { stream_id: GENERAL, topic: "other", unread_message_ids: ids.slice(N - 10) },
          ],
          huddles: [],
          mentions: ids.slice(0, DMS),
          count: N,
          old_unreads_missing: false,
        },
        ME,
      );
      expect(unread.count).to.equal(N);
      expect(unread.mentionCount).to.equal(DMS);
      expect(unread.channelCount(GENERAL)).to.equal(N - DMS);
      expect(unread.topics(GENERAL).find((t) => t.topic === "flood")).to.deep.equal({
        topic: "flood",
        count: N - DMS - 10,
        maxId: N - 10,
      });
      expect(unread.dms()).to.deep.equal([{ key: "5", count: DMS, maxId: DMS }]);
      const inChannel = unread.idsIn({ streamId: GENERAL });
      expect(inChannel.length).to.equal(N - DMS);
      expect(inChannel[0]).to.equal(DMS + 1);
      expect(inChannel[inChannel.length - 1]).to.equal(N);
      expect(unread.idsIn({ streamId: GENERAL, topic: "flood" }).length).to.equal(N - DMS - 10);
      expect(unread.idsIn({ dm: "5" }).length).to.equal(DMS);
      expect(unread.allIds().length).to.equal(N);
      unread.move(ids.slice(DMS), { topic: "moved" });
      expect(unread.topicCount(GENERAL, "moved")).to.equal(N - DMS);
      unread.remove(ids);
      expect(unread.count).to.equal(0);
      expect(unread.mentionCount).to.equal(0);
    });
  });
});

import { expect } from "chai";
import type { Message } from "../../src/web/api/types.js";
import { BlockKeys } from "../../src/web/views/feed-blocks.js";
import { directMessage, streamMessage, DESDEMONA, ME, OTHELLO } from "./fixtures.js";

const lunch = (id: number) => streamMessage(id, { topic: "lunch" });
const dinner = (id: number) => streamMessage(id, { topic: "dinner" });
const range = (from: number, to: number, make: (id: number) => Message) =>
  Array.from({ length: to - from + 1 }, (_, i) => make(from + i));
const shape = (blocks: ReturnType<BlockKeys["blocks"]>) => blocks.map((b) => b.messages.map((m) => m.id));

describe("web client: the feed's blocks and their keys", function () {
  it("runs messages of one conversation and day under one header; DMs by their people", function () {
    const aDayLater = { ...lunch(5), timestamp: lunch(5).timestamp + 86_400 };
    const blocks = new BlockKeys(ME).blocks([
      lunch(1),
      streamMessage(2, { topic: "LUNCH" }),
      dinner(3),
      directMessage(4, { senderId: OTHELLO }),
      directMessage(6, { senderId: OTHELLO }),
      directMessage(7, { senderId: DESDEMONA }),
      aDayLater,
    ]);
    expect(shape(blocks)).to.deep.equal([[1, 2], [3], [4, 6], [7], [5]]);
    expect(blocks.map((b) => b.day !== null)).to.deep.equal([true, false, false, false, true]);
    expect(new Set(blocks.map((b) => b.key)).size).to.equal(5);
  });

  it("keeps a block's key as older messages come in above it and newer below", function () {
    const keys = new BlockKeys(ME);
    const [first] = keys.blocks(range(100, 150, lunch));
    const [older] = keys.blocks([...range(50, 99, lunch), ...range(100, 150, lunch)]);
    const [both] = keys.blocks([...range(50, 150, lunch), ...range(151, 160, lunch)]);
    expect(older!.key).to.equal(first!.key);
    expect(both!.key).to.equal(first!.key);
    expect(both!.first.id).to.equal(50);
  });

  it("gives a new key to a block that is new, and to the second half of a split one", function () {
    const keys = new BlockKeys(ME);
    const before = keys.blocks(range(1, 10, lunch));
    const split = keys.blocks([...range(1, 5, lunch), dinner(11), ...range(6, 10, lunch)]);
    expect(shape(split)).to.deep.equal([[1, 2, 3, 4, 5], [11], [6, 7, 8, 9, 10]]);
    expect(split[0]!.key).to.equal(before[0]!.key);
    expect(new Set(split.map((b) => b.key)).size).to.equal(3);
    // Joined again (the dinner message moved away): one block, under the first half's key.
    const joined = keys.blocks(range(1, 10, lunch));
    expect(joined[0]!.key).to.equal(before[0]!.key);
  });
});

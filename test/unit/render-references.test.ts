import { expect } from "chai";
import { scanReferences } from "../../src/render/message.js";

describe("render: scanReferences", function () {
  it("finds everything a message may refer to", function () {
    const refs = scanReferences(
      "@**King Hamlet** @_**Othello** @**Sam Smith|15** @**|13** @**all** @**topic** " +
        "@*support* @_*retired* #**announce** #**design team>a topic** #**Denmark>x@12** " +
        ":smile::green_tick: `x @**In Code**` email@**Not A Mention**",
    );
    expect([...refs.userNames]).to.deep.equal(["King Hamlet", "Othello", "In Code"]);
    expect([...refs.userIds]).to.deep.equal([15, 13]);
    expect([...refs.groupNames]).to.deep.equal(["support", "retired"]);
    expect([...refs.channelNames]).to.have.members([
      "announce",
      "design team>a topic",
      "Denmark>x@12",
      "design team",
      "Denmark",
    ]);
    expect(refs.topics).to.deep.equal([
      { channelName: "design team", topic: "a topic" },
      { channelName: "Denmark", topic: "x@12" },
      { channelName: "Denmark", topic: "x" },
    ]);
    expect([...refs.emojiNames]).to.deep.equal(["smile", "green_tick"]);
  });

  it("is empty for plain text", function () {
    const refs = scanReferences("just words, no syntax");
    expect(refs.userNames.size + refs.userIds.size + refs.groupNames.size + refs.channelNames.size).to.equal(
      0,
    );
    expect(refs.topics).to.deep.equal([]);
    expect(refs.emojiNames.size).to.equal(0);
  });

  it("stays fast on long runs of colons", function () {
    const start = performance.now();
    scanReferences(":".repeat(10_000));
    expect(performance.now() - start).to.be.below(200);
  });
});

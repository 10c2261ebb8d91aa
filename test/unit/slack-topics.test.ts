import { expect } from "chai";
import { ThreadTopics, UNTHREADED_TOPIC } from "../../src/cli/import/slack/topics.js";

const JAN_15 = 1705309320.0003;

describe("Slack import: thread topics (Zulip's get_zulip_thread_topic_name)", function () {
  it("names a thread by its UTC date and first message, on one line", function () {
    const topics = new ThreadTopics();
    expect(topics.topicFor("9:1", JAN_15, "Release plan\nfor v2")).to.equal("2024-01-15 Release plan for v2");
    // The same thread keeps its topic, whatever its later messages say.
    expect(topics.topicFor("9:1", JAN_15, "something else")).to.equal("2024-01-15 Release plan for v2");
    expect(UNTHREADED_TOPIC).to.equal("imported from Slack");
  });

  it("cuts at 60 code points with …, and numbers threads that would share a name", function () {
    const topics = new ThreadTopics();
    const long = "ü".repeat(80);
    const first = topics.topicFor("9:1", JAN_15, long);
    expect(first).to.equal(`2024-01-15 ${"ü".repeat(48)}…`);
    expect(Array.from(first)).to.have.length(60);
    const second = topics.topicFor("9:2", JAN_15, long);
    expect(second).to.equal(`2024-01-15 ${"ü".repeat(44)}… (2)`);
    expect(Array.from(second)).to.have.length(60);
    expect(topics.topicFor("9:3", JAN_15, "short")).to.equal("2024-01-15 short");
    expect(topics.topicFor("9:4", JAN_15, "short")).to.equal("2024-01-15 short (2)");
  });
});

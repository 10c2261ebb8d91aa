import { expect } from "chai";
import { AlertWordMatcher } from "../../src/lib/alert-words.js";

describe("alert word matching", function () {
  const matcher = new AlertWordMatcher([
    { user_id: 1, word: "how" },
    { user_id: 2, word: "this possible" },
    { user_id: 3, word: "hello" },
    { user_id: 4, word: "Hello" },
    { user_id: 5, word: "how are you" },
    { user_id: 6, word: "hey" },
    { user_id: 7, word: "are" },
  ]);
  const alerted = (content: string) => [...matcher.usersAlerted(content)].sort((a, b) => a - b);

  it("finds every word of every user in one pass, overlapping and nested ones included", function () {
    // Zulip's test_alert_words_returns_user_ids_with_alert_words cases.
    expect(alerted("hello how is this possible how are you doing today")).to.deep.equal([1, 2, 3, 4, 5, 7]);
    expect(alerted("hey how are you")).to.deep.equal([1, 5, 6, 7]);
    expect(alerted("HELLO")).to.deep.equal([3, 4]);
  });

  it("needs Zulip's separators around a word, or the message's ends", function () {
    expect(alerted("howdy")).to.deep.equal([]);
    expect(alerted("showhow")).to.deep.equal([]);
    expect(alerted("how?")).to.deep.equal([1]);
    expect(alerted('"hey"')).to.deep.equal([6]);
    expect(alerted("> hello\n*hey*")).to.deep.equal([3, 4, 6]);
    expect(alerted("path/hello/x")).to.deep.equal([]);
    expect(alerted("")).to.deep.equal([]);
  });

  it("matches nothing without words", function () {
    const none = new AlertWordMatcher([]);
    expect(none.isEmpty).to.equal(true);
    expect([...none.usersAlerted("hello")]).to.deep.equal([]);
  });
});

import { expect } from "chai";
import { readFileSync } from "node:fs";
import {
  SLACK_EMOJI_FILE,
  buildSlackEmojiCodes,
  loadIamcal,
} from "../../tools/generate-slack-emoji-names.js";
import { zulipEmojiForSlackName } from "../../src/cli/import/slack/emoji-names.js";

describe("Slack import: emoji names -> Zulip's", function () {
  it("the committed table is what tools/generate-slack-emoji-names.ts makes of emoji-datasource", function () {
    expect(readFileSync(SLACK_EMOJI_FILE, "utf8")).to.equal(buildSlackEmojiCodes(loadIamcal()));
  });

  it("names a Slack emoji by Zulip's canonical name for the same code", function () {
    expect(zulipEmojiForSlackName("+1")).to.deep.equal({ emoji_name: "+1", emoji_code: "1f44d" });
    expect(zulipEmojiForSlackName("thumbsup")).to.deep.equal({ emoji_name: "+1", emoji_code: "1f44d" });
    // iamcal's "cat" is the face, Zulip's "kitten"; Zulip's "cat" is the whole cat.
    expect(zulipEmojiForSlackName("cat")).to.deep.equal({ emoji_name: "kitten", emoji_code: "1f431" });
    expect(zulipEmojiForSlackName("heart")).to.deep.equal({ emoji_name: "heart", emoji_code: "2764" });
    expect(zulipEmojiForSlackName("tada")).to.deep.equal({ emoji_name: "tada", emoji_code: "1f389" });
    expect(zulipEmojiForSlackName("slightly_smiling_face")).to.deep.equal({
      emoji_name: "slight_smile",
      emoji_code: "1f642",
    });
  });

  it("folds skin tones into the base emoji", function () {
    expect(zulipEmojiForSlackName("clap::skin-tone-2")).to.deep.equal({
      emoji_name: "clap",
      emoji_code: "1f44f",
    });
  });

  it("has no Zulip emoji for a workspace's custom emoji", function () {
    expect(zulipEmojiForSlackName("party-parrot")).to.equal(null);
    expect(zulipEmojiForSlackName("")).to.equal(null);
  });
});

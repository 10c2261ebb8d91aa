import { expect } from "chai";
import { MESSAGE_FLAG_BITS } from "../../src/lib/message-flags.js";
import { ZULIP_USER_MESSAGE_FLAGS, zulipFlagsMask } from "../../src/lib/zulip-export/flags.js";

describe("the export's flags_mask (Zulip's UserMessage bit field)", function () {
  it("puts each flag at its position in Zulip's ALL_FLAGS", function () {
    expect(zulipFlagsMask(MESSAGE_FLAG_BITS.read)).to.equal(1);
    expect(zulipFlagsMask(MESSAGE_FLAG_BITS.starred)).to.equal(2);
    expect(zulipFlagsMask(MESSAGE_FLAG_BITS.mentioned | MESSAGE_FLAG_BITS.read)).to.equal(8 | 1);
    expect(zulipFlagsMask(MESSAGE_FLAG_BITS.has_alert_word)).to.equal(512);
    expect(zulipFlagsMask(MESSAGE_FLAG_BITS.is_private)).to.equal(2048);
    ZULIP_USER_MESSAGE_FLAGS.forEach((name, i) =>
      expect(zulipFlagsMask(MESSAGE_FLAG_BITS[name])).to.equal(2 ** i),
    );
  });

  it("drops bits Zulip has no flag for", function () {
    expect(zulipFlagsMask(1 << 20)).to.equal(0);
    expect(zulipFlagsMask((1 << 20) | 2)).to.equal(2);
  });
});

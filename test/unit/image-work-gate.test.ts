import { availableParallelism } from "node:os";
import { expect } from "chai";
import sharp from "sharp";
import { JsonableError } from "../../src/errors.js";
import { resizeAvatar } from "../../src/lib/images.js";

describe("image work: one operation per two cores, a few waiting, the rest refused", function () {
  const running = Math.max(1, Math.floor(availableParallelism() / 2));
  const WAITING = 16;

  it("refuses what comes beyond the waiting room with Zulip's 429, and runs the rest", async function () {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#c00" } })
      .png()
      .toBuffer();
    // All asked for at once: the gate counts them before any has started.
    const outcomes = await Promise.all(
      Array.from({ length: running + WAITING + 3 }, () =>
        resizeAvatar(png, 10).then(
          (bytes) => bytes.length > 0,
          (err: unknown) => err,
        ),
      ),
    );
    expect(outcomes.slice(0, running + WAITING)).to.deep.equal(Array(running + WAITING).fill(true));
    for (const refused of outcomes.slice(running + WAITING)) {
      expect(refused).to.be.instanceOf(JsonableError);
      expect(refused).to.include({
        status: 429,
        code: "RATE_LIMIT_HIT",
        message: "API usage exceeded rate limit",
      });
    }
    // Once the gate is free, work runs again.
    expect((await resizeAvatar(png, 10)).length).to.be.above(0);
  });
});

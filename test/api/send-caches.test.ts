import { expect } from "chai";
import sharp from "sharp";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postUpload } from "../helpers/uploads.js";

/** A send reads the realm's linkifiers and custom emoji from a cache: every change reaches the next send. */
describe("POST /messages: cached linkifiers and custom emoji", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  const rendered = async (content: string) => {
    const id = await sendToChannel(u.hamlet, "Denmark", "caches", content);
    return (expectSuccess(await u.othello.client.get(`/messages/${id}`)).message as { content: string })
      .content;
  };

  it("renders with linkifiers as added, changed and removed since the last send", async function () {
    expect(await rendered("see BUG-7")).to.equal("<p>see BUG-7</p>");
    const id = expectSuccess(
      await u.iago.client.post("/realm/filters", {
        pattern: "BUG-(?P<id>[0-9]+)",
        url_template: "https://bugs.example/{id}",
      }),
    ).id as number;
    expect(await rendered("see BUG-7")).to.equal('<p>see <a href="https://bugs.example/7">BUG-7</a></p>');
    expectSuccess(
      await u.iago.client.patch(`/realm/filters/${id}`, {
        pattern: "BUG-(?P<id>[0-9]+)",
        url_template: "https://tracker.example/{id}",
      }),
    );
    expect(await rendered("see BUG-7")).to.equal('<p>see <a href="https://tracker.example/7">BUG-7</a></p>');
    expectSuccess(await u.iago.client.delete(`/realm/filters/${id}`));
    expect(await rendered("see BUG-7")).to.equal("<p>see BUG-7</p>");
  });

  it("renders custom emoji as added and deactivated since the last send", async function () {
    expect(await rendered("hi :ferret:")).to.equal("<p>hi :ferret:</p>");
    const png = await sharp({
      create: { width: 8, height: 8, channels: 3, background: { r: 9, g: 9, b: 9 } },
    })
      .png()
      .toBuffer();
    expectSuccess(await postUpload(u.hamlet, "ferret.png", png, { path: "/realm/emoji/ferret" }));
    expect(await rendered("hi :ferret:")).to.match(
      /^<p>hi <img alt=":ferret:" class="emoji" src="[^"]+" title="ferret"><\/p>$/,
    );
    expectSuccess(await u.hamlet.client.delete("/realm/emoji/ferret"));
    expect(await rendered("hi :ferret:")).to.equal("<p>hi :ferret:</p>");
  });
});

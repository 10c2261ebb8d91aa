import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import { messageCount } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("POST /messages/render", function () {
  let server: TestServer;
  let u: Cast;
  let secret: number;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    secret = await createChannel(u.othello, "Secret", [u.othello], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  it("renders Markdown as Zulip does, sending and storing nothing", async function () {
    const queue = (await register(u.othello.client)).queue_id as string;
    const before = await messageCount(server);
    const body = expectSuccess(await u.hamlet.client.post("/messages/render", { content: "**foo**" }));
    expect(body).to.deep.equal({ result: "success", msg: "", rendered: "<p><strong>foo</strong></p>" });
    const mention = expectSuccess(
      await u.hamlet.client.post("/messages/render", { content: `hi @**${u.othello.fullName}**` }),
    );
    expect(mention.rendered).to.include(`data-user-id="${u.othello.id}"`);
    expect(await messageCount(server)).to.equal(before);
    expect(
      (await pendingEvents(u.othello.client, queue)).filter((e) => e.type !== "heartbeat"),
    ).to.deep.equal([]);
  });

  it("resolves links only to what the user may see", async function () {
    const link = (user: typeof u.hamlet) => user.client.post("/messages/render", { content: "#**Secret**" });
    const member = expectSuccess(await link(u.othello));
    expect(member.rendered).to.include(`data-stream-id="${secret}"`);
    const outsider = expectSuccess(await link(u.hamlet));
    expect(outsider.rendered).not.to.include("data-stream-id");
    expect(outsider.rendered).to.equal("<p>#<strong>Secret</strong></p>");
  });

  it("refuses a missing or too long content, and anonymous callers", async function () {
    expectError(
      await u.hamlet.client.post("/messages/render", {}),
      400,
      "Missing 'content' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await u.hamlet.client.post("/messages/render", { content: "x".repeat(10001) }),
      400,
      "content is too long (limit: 10000 characters)",
    );
    expect(
      expectSuccess(await u.hamlet.client.post("/messages/render", { content: "x".repeat(10000) })).rendered,
    ).to.be.a("string");
    const anonymous = await server.anonymous.post("/messages/render", { content: "hi" });
    expect(anonymous.status).to.equal(401);
  });
});

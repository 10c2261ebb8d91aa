import { expect } from "chai";
import { Agent, request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { createBot, type TestBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { messageCount } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { lastMessage, postWebhook } from "../helpers/webhooks.js";

/**
 * How POST /external/{integration} reads its body (http/body-text.ts, as every other body):
 * the size limit, inflation, and a leading byte order mark.
 */
describe("incoming webhooks: reading the body", function () {
  const LIMIT = 4096;
  let server: TestServer;
  let bot: TestBot;
  const path = () => `json?api_key=${bot.apiKey}&stream=dev`;

  before(async function () {
    server = await startTestServer({ body_limit_bytes: LIMIT });
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    await createChannel(hamlet, "dev", [hamlet]);
    bot = await createBot(hamlet, "hooks", { bot_type: 2 });
  });
  after(async function () {
    await server.close();
  });

  interface Answer {
    status: number;
    body: Record<string, unknown>;
    reusedSocket: boolean;
  }

  /**
   * POST through `agent` (one keep-alive socket): the body in 1 KiB pieces, with a
   * Content-Length or, when `declareLength` is false, chunked.
   */
  function post(agent: Agent, body: Buffer, declareLength: boolean): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { "content-type": "application/json" };
      if (declareLength) headers["content-length"] = body.length;
      const req = httpRequest(
        new URL(`/api/v1/external/${path()}`, server.url),
        { method: "POST", agent, headers },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(text) as Record<string, unknown>,
              reusedSocket: req.reusedSocket,
            }),
          );
        },
      );
      req.on("error", reject);
      for (let at = 0; at < body.length; at += 1024) req.write(body.subarray(at, at + 1024));
      req.end();
    });
  }

  it("a body over body_limit_bytes is refused with 413, nothing posted", async function () {
    const count = await messageCount(server);
    const body = JSON.stringify({ text: "x".repeat(10_000) });
    const res = await postWebhook(server, path(), body);
    expectError(res as never, 413, "Request body too large", "PAYLOAD_TOO_LARGE");
    expect(await messageCount(server)).to.equal(count);
  });

  for (const declareLength of [true, false]) {
    const how = declareLength ? "a declared Content-Length" : "a chunked body";
    it(`over the limit with ${how}: 413 JSON, and the connection still serves the next request`, async function () {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const count = await messageCount(server);
        const big = Buffer.from(JSON.stringify({ text: "x".repeat(LIMIT * 50) }));
        const refused = await post(agent, big, declareLength);
        expectError(refused as never, 413, "Request body too large", "PAYLOAD_TOO_LARGE");
        expect(await messageCount(server)).to.equal(count);
        const next = await post(agent, Buffer.from('{"after": 1}'), declareLength);
        expectSuccess(next as never);
        expect(next.reusedSocket, "the same connection").to.equal(true);
        expect((await lastMessage(server))!.content).to.include('"after": 1');
      } finally {
        agent.destroy();
      }
    });
  }

  it("inflates a gzip body; the limit counts the inflated bytes", async function () {
    const res = await postWebhook(server, path(), gzipSync('{"packed": true}'), {
      "content-encoding": "gzip",
    });
    expectSuccess(res as never);
    expect((await lastMessage(server))!.content).to.include('"packed": true');
    const count = await messageCount(server);
    const bomb = gzipSync(JSON.stringify({ text: "x".repeat(LIMIT) }));
    expect(bomb.length).to.be.below(LIMIT);
    const refused = await postWebhook(server, path(), bomb, { "content-encoding": "gzip" });
    expectError(refused as never, 413, "Request body too large", "PAYLOAD_TOO_LARGE");
    const broken = await postWebhook(server, path(), Buffer.from("not gzip"), { "content-encoding": "gzip" });
    expectError(broken as never, 400, "Malformed request body", "BAD_REQUEST");
    expect(await messageCount(server)).to.equal(count);
  });

  it("reads a JSON payload after a byte order mark (Zulip refuses it as malformed)", async function () {
    const res = await postWebhook(server, path(), '\ufeff{"marked": "é"}');
    expectSuccess(res as never);
    expect((await lastMessage(server))!.content).to.include('"marked": "\\u00e9"');
  });
});

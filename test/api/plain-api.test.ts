import { expect } from "chai";
import { createServer, IncomingMessage, ServerResponse, type Server } from "node:http";
import { connect, Socket, type AddressInfo } from "node:net";
import { ENDPOINTS } from "../../src/api/index.js";
import { JOIN_UP_TO_BYTES, plainApi } from "../../src/http/plain-api.js";
import { Router } from "../../src/http/router.js";
import { createLogger } from "../../src/logger.js";
import { createKoaHandler } from "../../src/server/koa-app.js";
import { register } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** One request over its own connection; the raw response, as sent. */
function rawRequest(port: number, line: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`${line} HTTP/1.1\r\nHost: chatd.test\r\n${lines.join("")}Connection: close\r\n\r\n`);
  });
}

/** The parts that change from one request to the next: the date, and the bucket's count. */
const comparable = (response: string) =>
  response.replace(/\r\nDate: [^\r]*/, "").replace(/(X-RateLimit-Remaining): \d+/, "$1: N");

const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}`;

// GET requests to the API skip Koa (http/plain-api.ts); the rest of the suite checks what
// they answer, these check it is exactly what Koa answers.
describe("API requests without a body over plain Node", function () {
  let server: TestServer;
  let realm: TestRealm;
  let koa: Server;
  let log = "";

  before(async function () {
    server = await startTestServer(
      { rate_limiting: true, rate_limit_api_by_user: "60:100000", rate_limit_api_by_ip: "60:100000" },
      { logger: createLogger("info", (line) => (log += line)) },
    );
    realm = await server.factory.realm();
    const handler = createKoaHandler(server.app);
    koa = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => koa.listen(0, "127.0.0.1", resolve));
  });
  after(async function () {
    await new Promise((resolve) => koa.close(resolve));
    await server.close();
  });

  const both = async (line: string, headers: Record<string, string>) => {
    const plainPort = Number(new URL(server.url).port);
    const plain = await rawRequest(plainPort, line, headers);
    const byKoa = await rawRequest((koa.address() as AddressInfo).port, line, headers);
    return { plain, byKoa };
  };

  it("answers each kind of GET byte for byte as Koa does, and logs the same line", async function () {
    const hamlet = realm.users.hamlet!;
    const auth = { authorization: basic(hamlet), "user-agent": "ZulipMobile/27.1 (Android)" };
    const cases: Array<[string, Record<string, string>]> = [
      ["GET /api/v1/users/me", auth],
      ["GET /api/v1/users/me?client=web&ignored=1&zz=2&ignored=3", auth],
      ["GET /api/v1/users/me?client=a&client=b", auth],
      ["GET /api/v1/users/me/subscriptions", auth],
      ["GET /api/v1/users/me/subscriptions?include_subscribers=true", auth],
      ["GET /api/v1/users/me/subscriptions?include_subscribers=nonsense", auth],
      [`GET /api/v1/users/${realm.users.othello!.id}?include_custom_profile_fields=true`, auth],
      ["GET /api/v1/users/no-such-user", auth],
      ["GET /api/v1/messages?anchor=newest&num_before=3&num_after=0", auth],
      ["GET /api/v1/messages", auth],
      ["GET /api/v1/streams", auth],
      ["GET /api/v1/server_settings", {}],
      ["GET /api/v1/users/me", {}],
      ["GET /api/v1/users/me", { authorization: "Basic bm9ib2R5Om5vdGhpbmc=" }],
      ["GET /api/v1/users/me", { authorization: "Bearer x" }],
      ["GET /api/v1/users/me%2Fsubscriptions", auth],
      ["GET /api/v1/users/me/subscriptions/", auth],
    ];
    for (const [line, headers] of cases) {
      log = "";
      const { plain, byKoa } = await both(line, headers);
      expect(comparable(plain), line).to.equal(comparable(byKoa));
      expect(plain, line).to.match(/^HTTP\/1\.1 \d{3} /);
      // Each request's log line, the time it took aside.
      const lines = log
        .replace(/^\S+ /gm, "")
        .replace(/ \d+\.\dms/g, "")
        .split("\n");
      expect(lines[0], line).to.equal(lines[1]);
    }
  });

  it("answers GET /events with message events byte for byte as Koa does, small and large", async function () {
    const { hamlet, othello } = realm.users;
    const auth = { authorization: basic(hamlet!) };
    const queueId = (await register(hamlet!.client, { event_types: ["message"] })).queue_id as string;
    // Not acknowledged: both requests get the same events.
    const line = `GET /api/v1/events?queue_id=${encodeURIComponent(queueId)}&dont_block=true`;
    await sendDirect(othello!, [hamlet!], "small: one buffer");
    const small = await both(line, auth);
    expect(comparable(small.plain)).to.equal(comparable(small.byKoa));
    // Bodies past JOIN_UP_TO_BYTES go out part by part (the shared message bytes uncopied).
    for (let i = 0; i < 3; i++) await sendDirect(othello!, [hamlet!], `large ${i} ${"word ".repeat(1900)}`);
    const large = await both(line, auth);
    expect(comparable(large.plain)).to.equal(comparable(large.byKoa));
    const length = Number(/\r\nContent-Length: (\d+)/.exec(large.plain)?.[1]);
    expect(length).to.be.above(JOIN_UP_TO_BYTES);
    const body = JSON.parse(large.plain.slice(large.plain.indexOf("\r\n\r\n") + 4)) as { events: unknown[] };
    expect(body.events).to.have.lengthOf(4);
  });

  it("answers a bug with the same bare 500, logged the same", async function () {
    const state = server.app.userState;
    const original = state.maxMessageId.bind(state);
    state.maxMessageId = () => Promise.reject(new Error("broken by the test"));
    try {
      log = "";
      const { plain, byKoa } = await both("GET /api/v1/users/me", {
        authorization: basic(realm.users.iago!),
      });
      expect(comparable(plain)).to.equal(comparable(byKoa));
      expect(plain).to.match(/^HTTP\/1\.1 500 /);
      expect(plain).to.contain(
        '{"result":"error","msg":"Internal server error","code":"INTERNAL_SERVER_ERROR"}',
      );
      expect(log.match(/GET \/api\/v1\/users\/me failed: broken by the test/g)).to.have.length(2);
    } finally {
      state.maxMessageId = original;
    }
  });

  it("takes GET requests routed to an endpoint and leaves the rest to Koa", async function () {
    const handle = plainApi(server.app, new Router(ENDPOINTS));
    const request = (method: string, url: string) => {
      const req = new IncomingMessage(new Socket());
      req.method = method;
      req.url = url;
      return { req, res: new ServerResponse(req) };
    };
    const taken = request("GET", "/api/v1/users/me?client=x");
    const answered = handle(taken.req, taken.res);
    expect(answered).to.be.instanceOf(Promise);
    await answered;
    expect(taken.res.statusCode).to.equal(401);
    for (const [method, url] of [
      ["HEAD", "/api/v1/users/me"],
      ["POST", "/api/v1/users/me/subscriptions"],
      ["DELETE", "/api/v1/users/me/subscriptions"],
      ["GET", "/api/v1/no/such/route"],
      ["GET", "/api/v1/users/me/presence"],
      ["GET", "/api/v1/users/me#fragment"],
      ["GET", "/api/v1/users/me?a=b c"],
      ["GET", "/static/x.js"],
      ["GET", "http://chatd.test/api/v1/users/me"],
    ] as const) {
      const { req, res } = request(method, url);
      expect(handle(req, res), `${method} ${url}`).to.equal(null);
    }
  });
});

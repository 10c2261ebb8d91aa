import { connect } from "node:net";
import { expect } from "chai";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** Raw bytes over a socket: the whole answer, status line to body. */
function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

function envelope(answer: string): { status: number; body: unknown } {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body: JSON.parse(body) };
}

describe("requests Node's HTTP parser refuses", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  it("answers a malformed request line with Zulip's error envelope", async function () {
    const answer = envelope(await rawRequest(server.url, "GARBAGE\r\n\r\n"));
    expect(answer).to.deep.equal({
      status: 400,
      body: { result: "error", msg: "Malformed HTTP request", code: "BAD_REQUEST" },
    });
  });

  it("answers headers over the size limit with a 431 envelope", async function () {
    const request = `GET /api/v1/users/me?x=${"a".repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const answer = envelope(await rawRequest(server.url, request));
    expect(answer).to.deep.equal({
      status: 431,
      body: { result: "error", msg: "Request headers too large", code: "BAD_REQUEST" },
    });
  });
});

import { expect } from "chai";
import { request as httpRequest } from "node:http";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

/**
 * Body parsing edge cases (http/body.ts, http/body-text.ts), through POST /messages/render,
 * which echoes its `content` parameter as rendered HTML.
 */
describe("request bodies: encodings, charsets, limits", function () {
  const LIMIT = 4096;
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer({ body_limit_bytes: LIMIT, max_concurrent_body_parses: 1 });
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const auth = () => {
    const { email, apiKey } = realm.users.hamlet!;
    return `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`;
  };

  async function render(
    contentType: string,
    body: string | Buffer,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(new URL("/api/v1/messages/render", server.url), {
      method: "POST",
      headers: { authorization: auth(), "content-type": contentType, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const FORM = "application/x-www-form-urlencoded";
  const rendered = (text: string) => `<p>${text}</p>`;

  it("keeps the last of a repeated form key, in the body and across query and body", async function () {
    const res = await render(FORM, "content=first&content=second");
    expect(res.body).to.include({ result: "success", rendered: rendered("second") });
    const url = new URL("/api/v1/messages/render?content=query", server.url);
    const both = await fetch(url, {
      method: "POST",
      headers: { authorization: auth(), "content-type": FORM },
      body: "content=body",
    });
    expect(await both.json()).to.include({ rendered: rendered("body") });
  });

  it("reads an empty form body as no parameters, and refuses an empty JSON body", async function () {
    const form = await render(FORM, "");
    expect(form.status).to.equal(400);
    expect(form.body).to.include({ msg: "Missing 'content' argument" });
    const json = await render("application/json", "");
    expect(json.status).to.equal(400);
    expect(json.body).to.include({ msg: "Malformed JSON" });
  });

  it("decodes bodies as UTF-8 whatever the charset says, and drops a byte order mark", async function () {
    const latin1 = await render(
      `${FORM}; charset=ISO-8859-1`,
      Buffer.from("content=caf\u00c3\u00a9", "latin1"),
    );
    expect(latin1.body).to.include({ rendered: rendered("café") });
    const bom = await render(FORM, "\ufeffcontent=x");
    expect(bom.body).to.include({ rendered: rendered("x") });
    const json = await render("application/json; charset=utf-8", '\ufeff{"content": "é"}');
    expect(json.body).to.include({ rendered: rendered("é") });
  });

  it("inflates gzip, deflate and br bodies; other content encodings are refused", async function () {
    const form = "content=packed";
    for (const [encoding, packed] of [
      ["gzip", gzipSync(form)],
      ["deflate", deflateSync(form)],
      ["br", brotliCompressSync(form)],
    ] as const) {
      const res = await render(FORM, packed, { "content-encoding": encoding });
      expect(res.body, encoding).to.include({ rendered: rendered("packed") });
    }
    const unknown = await render(FORM, form, { "content-encoding": "compress" });
    expect(unknown.status).to.equal(400);
    expect(unknown.body).to.include({ msg: "Unsupported request body type" });
    const broken = await render(FORM, Buffer.from("not gzip"), { "content-encoding": "gzip" });
    expect(broken.status).to.equal(400);
    expect(broken.body).to.include({ msg: "Malformed request body" });
  });

  it("applies the size limit to the body as sent and as inflated", async function () {
    const atLimit = `content=${"x".repeat(LIMIT - "content=".length)}`;
    expect((await render(FORM, atLimit)).status).to.equal(200);
    const over = await render(FORM, `${atLimit}x`);
    expect(over.status).to.equal(413);
    expect(over.body).to.include({ code: "PAYLOAD_TOO_LARGE" });
    const bomb = await render(FORM, gzipSync(`${atLimit}x`), { "content-encoding": "gzip" });
    expect(bomb.status).to.equal(413);
    const json = await render("application/json", JSON.stringify({ content: "x".repeat(LIMIT) }));
    expect(json.status).to.equal(413);
  });

  it("refuses a declared length over the limit before the body arrives", async function () {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        new URL("/api/v1/messages/render", server.url),
        {
          method: "POST",
          headers: { authorization: auth(), "content-type": FORM, "content-length": LIMIT * 10 },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () => {
            resolve({ status: res.statusCode ?? 0, body: text });
            req.destroy();
          });
        },
      );
      req.on("error", reject);
      req.write("content=");
    });
    expect(answer.status).to.equal(413);
    expect(JSON.parse(answer.body)).to.include({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("refuses __proto__ keys in JSON, also when written with escapes", async function () {
    for (const text of [
      '{"__proto__": {}, "content": "x"}',
      '{"content": "x", "a": {"\\u005f_proto__": 1}}',
    ]) {
      const res = await render("application/json", text);
      expect(res.status, text).to.equal(400);
      expect(res.body).to.include({ msg: "Malformed request body" });
    }
    const value = await render("application/json", '{"content": "__proto__"}');
    expect(value.body).to.include({ rendered: rendered("__proto__") });
  });

  it("reads multipart fields (the last of a repeated one) and refuses files there", async function () {
    const form = new FormData();
    form.append("content", "one");
    form.append("content", "two");
    const res = await fetch(new URL("/api/v1/messages/render", server.url), {
      method: "POST",
      headers: { authorization: auth() },
      body: form,
    });
    expect(await res.json()).to.include({ rendered: rendered("two") });
    const withFile = new FormData();
    withFile.append("content", "x");
    withFile.append("file", new Blob(["data"], { type: "text/plain" }), "a.txt");
    const refused = await fetch(new URL("/api/v1/messages/render", server.url), {
      method: "POST",
      headers: { authorization: auth() },
      body: withFile,
    });
    // As before: formidable's "maxFiles exceeded" carries HTTP 413, so the refusal says too large.
    expect(refused.status).to.equal(413);
    expect(await refused.json()).to.include({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("frees the parse slot of a compressed body whose client went away", async function () {
    // max_concurrent_body_parses is 1: a slot kept by the abandoned body would hold up the next.
    await new Promise<void>((resolve) => {
      const packed = gzipSync(`content=${"x".repeat(2000)}`);
      const req = httpRequest(new URL("/api/v1/messages/render", server.url), {
        method: "POST",
        headers: {
          authorization: auth(),
          "content-type": FORM,
          "content-encoding": "gzip",
          "content-length": packed.length,
        },
      });
      req.on("error", () => resolve());
      req.write(packed.subarray(0, 10));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    const res = await render(FORM, "content=after", {});
    expect(res.body).to.include({ rendered: rendered("after") });
  });
});

import { expect } from "chai";
import { expectSuccess } from "../helpers/client.js";
import { LOADING_PLACEHOLDER_SRC } from "../../src/render/upload-previews.js";
import { register } from "../helpers/events.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("the page at /help/clients and the files under /static", function () {
  let server: TestServer;
  let realm: TestRealm;
  /** A path of the server, fetched over HTTP as a browser would. */
  const get = (path: string, init: RequestInit = {}) => fetch(new URL(path, server.url), init);
  /** realm_icon URLs name the public server (external_url); fetch them from the test server. */
  const local = (url: string) => {
    const parsed = new URL(url);
    expect(parsed.host).to.equal(TEST_HOST);
    return parsed.pathname + parsed.search;
  };

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  it("before any organization exists, the page still says what the server is", async function () {
    const res = await get("/help/clients");
    expect(res.status).to.equal(200);
    expect(await res.text()).to.contain("<h1>chatd</h1>");
  });

  it("names the organization (escaped) and says how to connect each supported client", async function () {
    realm = await server.factory.realm({ desdemona: 100 }, `Tom & <Jerry's> "Co"`);
    await server.app.knex("realms").where({ id: realm.id }).update({ description: "<b>Cats</b> & mice" });
    server.app.realms.invalidate(realm.id);
    const res = await get("/help/clients");
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).to.contain("default-src 'none'");
    expect(res.headers.get("x-content-type-options")).to.equal("nosniff");
    const html = await res.text();
    expect(html).to.match(/^<!doctype html>/);
    expect(html).to.contain("<h1>Tom &amp; &lt;Jerry&#x27;s&gt; &quot;Co&quot;</h1>");
    expect(html).to.contain("<title>Tom &amp; &lt;Jerry&#x27;s&gt; &quot;Co&quot; · chatd</title>");
    expect(html).to.contain("&lt;b&gt;Cats&lt;/b&gt; &amp; mice");
    expect(html).not.to.contain("<Jerry");
    expect(html).not.to.contain("<b>Cats");
    expect(html).not.to.match(/<script/i);
    // The server URL to paste into the mobile app and zulip-terminal: external_url.
    expect(html).to.contain(`Server URL: <code>http://${TEST_HOST}</code>`);
    for (const client of [
      "Zulip mobile app",
      "zulip-terminal",
      "zulip-send",
      "zulip_bots",
      "zulip-run-bot",
    ]) {
      expect(html).to.contain(client);
    }
    expect(html).to.contain(`[api]\nemail=you@example.com\nkey=YOUR-API-KEY\nsite=http://${TEST_HOST}`);
    expect(html).to.contain(`http://${TEST_HOST}/api/v1/fetch_api_key`);
    expect(html).to.contain("npx chatd api-key --email");
    expect(html).to.contain(`<img src="/static/images/logo/chatd-icon-128x128.png"`);
  });

  it("answers HEAD without a body, and other methods with the API's 404", async function () {
    const head = await get("/help/clients", { method: "HEAD" });
    expect(head.status).to.equal(200);
    expect(head.headers.get("content-type")).to.equal("text/html; charset=utf-8");
    expect(await head.text()).to.equal("");
    const post = await get("/help/clients", { method: "POST" });
    expect(post.status).to.equal(404);
    expect(await post.json()).to.include({ result: "error", msg: "Not Found" });
  });

  it("serves the realm icon that /server_settings and /register point at, cacheable", async function () {
    const settings = expectSuccess(await server.anonymous.get("/server_settings"));
    const state = await register(realm.users.desdemona!.client, { fetch_event_types: ["realm"] });
    expect(state.realm_icon_url).to.equal(settings.realm_icon);
    const res = await get(local(settings.realm_icon as string));
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.equal("image/png");
    expect(res.headers.get("cache-control")).to.equal("public, max-age=86400");
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 8).equals(PNG_SIGNATURE)).to.equal(true);
    expect(body.readUInt32BE(16)).to.equal(128); // IHDR width
    expect(body.readUInt32BE(20)).to.equal(128); // IHDR height
    expect(Number(res.headers.get("content-length"))).to.equal(body.length);

    const etag = res.headers.get("etag")!;
    expect(etag).to.match(/^"[\w-]+"$/);
    const again = await get(local(settings.realm_icon as string), { headers: { "if-none-match": etag } });
    expect(again.status).to.equal(304);
    expect(await again.text()).to.equal("");
    const head = await get("/static/images/logo/chatd-icon-128x128.png", { method: "HEAD" });
    expect(head.status).to.equal(200);
    expect(head.headers.get("content-type")).to.equal("image/png");
  });

  it("serves the placeholder image previews show until their thumbnail is made", async function () {
    // The rendered HTML of an image upload names it before its thumbnail exists (render/upload-previews.ts).
    const res = await get(LOADING_PLACEHOLDER_SRC);
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.equal("image/svg+xml");
    expect(await res.text()).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it("serves nothing outside the static directory, and no unknown file", async function () {
    for (const path of [
      "/static/../package.json",
      "/static/%2e%2e/%2e%2e/package.json",
      "/static/%2e%2e%2fhome-page.js",
      "/static/images/logo/nothing.png",
      "/static/images/logo",
      "/static/images/logo/",
      "/static/%E0%A4%A",
      "/static/images/logo/chatd-icon-128x128.png%00.png",
    ]) {
      const res = await get(path);
      expect(res.status, path).to.equal(404);
      expect(res.headers.get("content-type"), path).to.match(/^application\/json/);
    }
    const post = await get("/static/images/logo/chatd-icon-128x128.png", { method: "POST" });
    expect(post.status).to.equal(404);
  });
});

import { expect } from "chai";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { request as httpRequest } from "node:http";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { TEST_HOST, startTestServer, type TestServer } from "../helpers/server.js";
import { TABLE_FILE } from "../../tools/generate-emoji-names.js";

/** A raw request (fetch would decompress and hide Content-Encoding). */
function rawGet(url: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("Zulip's emoji names", function () {
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

  describe("server_emoji_data_url", function () {
    /** register's URL, pointed at the test server (the realm's host name is not resolvable). */
    const dataUrl = async () => {
      const state = await register(u.hamlet.client, { fetch_event_types: ["realm"] });
      const url = new URL(state.server_emoji_data_url as string);
      return {
        absolute: state.server_emoji_data_url as string,
        local: `${server.url}${url.pathname}${url.search}`,
      };
    };

    it("is an absolute URL on the realm, given with the realm state", async function () {
      const { absolute } = await dataUrl();
      expect(absolute).to.match(
        new RegExp(`^http://${TEST_HOST}/static/generated/emoji/emoji_api\\.json\\?v=[0-9a-f]{16}$`),
      );
      const all = await register(u.othello.client);
      expect(all.server_emoji_data_url).to.equal(absolute);
      const other = await register(u.othello.client, { fetch_event_types: ["message"] });
      expect(other).to.not.have.property("server_emoji_data_url");
    });

    it("serves {code_to_names} without credentials, as committed, every list non-empty", async function () {
      const { local } = await dataUrl();
      const res = await fetch(local);
      expect(res.status).to.equal(200);
      expect(res.headers.get("content-type")).to.match(/^application\/json/);
      const text = await res.text();
      expect(text).to.equal(readFileSync(TABLE_FILE, "utf8"));
      const body = JSON.parse(text) as { code_to_names: Record<string, string[]> };
      expect(Object.keys(body)).to.deep.equal(["code_to_names"]);
      expect(Object.keys(body.code_to_names)).to.have.lengthOf(1883);
      expect(body.code_to_names["1f44d"]).to.deep.equal(["+1", "thumbs_up", "like"]);
      for (const names of Object.values(body.code_to_names)) expect(names).to.not.be.empty;
      // The codes the mobile app puts first in its picker are all there.
      for (const code of ["1f44d", "1f389", "1f642", "2764", "1f6e0", "1f419"])
        expect(body.code_to_names).to.have.property(code);
    });

    it("lets clients cache it: gzip, an ETag, and a versioned URL that never changes", async function () {
      const { local } = await dataUrl();
      const plain = await rawGet(local, { "accept-encoding": "identity" });
      expect(plain.status).to.equal(200);
      expect(plain.headers["content-encoding"]).to.equal(undefined);
      expect(plain.headers["cache-control"]).to.equal("public, max-age=31536000, immutable");
      const etag = plain.headers.etag as string;
      expect(etag).to.match(/^"[0-9a-f]{16}"$/);

      const zipped = await rawGet(local, { "accept-encoding": "gzip, deflate" });
      expect(zipped.headers["content-encoding"]).to.equal("gzip");
      expect(zipped.headers.vary).to.match(/Accept-Encoding/i);
      expect(gunzipSync(zipped.body).equals(plain.body)).to.equal(true);
      expect(zipped.body.length).to.be.below(plain.body.length / 2);

      const again = await rawGet(local, { "if-none-match": etag });
      expect(again.status).to.equal(304);
      expect(again.body.length).to.equal(0);

      // Without (or with a stale) version the client must revalidate.
      const bare = await rawGet(local.replace(/\?.*$/, ""));
      expect(bare.status).to.equal(200);
      expect(bare.headers["cache-control"]).to.equal("public, no-cache");
      expect(bare.body.equals(plain.body)).to.equal(true);
      const head = await rawGet(local, {}, "HEAD");
      expect(head.status).to.equal(200);
      expect(head.body.length).to.equal(0);
    });

    it("is only read: other methods and neighbouring paths are not found", async function () {
      const { local } = await dataUrl();
      expect((await fetch(local, { method: "POST" })).status).to.equal(404);
      expect((await fetch(`${server.url}/static/generated/emoji/emoji_codes.json`)).status).to.equal(404);
    });
  });

  describe("in reactions", function () {
    const react = (user: TestUser, id: number, params: Params) =>
      user.client.post(`/messages/${id}/reactions`, params);
    const reactionsOf = async (id: number) =>
      (
        expectSuccess(await u.hamlet.client.get(`/messages/${id}`)).message as {
          reactions: Array<{ emoji_name: string; emoji_code: string }>;
        }
      ).reactions.map((r) => [r.emoji_name, r.emoji_code]);

    it("accepts every name of an emoji, canonical or alias, and resolves Zulip's code", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "names", "react");
      const names = ["+1", "cat", "dog", "calendar", "slight_smile", "pray", "piñata"];
      for (const emoji_name of names) expectSuccess(await react(u.othello, id, { emoji_name }));
      expectSuccess(
        await react(u.hamlet, id, {
          emoji_name: "like",
          emoji_code: "1f44d",
          reaction_type: "unicode_emoji",
        }),
      );
      expectSuccess(await react(u.hamlet, id, { emoji_name: "pinata", emoji_code: "1fa85" }));
      expect(await reactionsOf(id)).to.deep.equal([
        ["+1", "1f44d"],
        ["cat", "1f408"],
        ["dog", "1f415"],
        ["calendar", "1f4c5"],
        ["slight_smile", "1f642"],
        ["pray", "1f64f"],
        ["piñata", "1fa85"],
        // Joining a reaction takes its name.
        ["+1", "1f44d"],
        ["piñata", "1fa85"],
      ]);
    });

    it("refuses names Zulip does not have, and codes that are not exactly Zulip's", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "names", "strict");
      for (const emoji_name of ["thumbsup", "hankey", "skin-tone-2", "man-girl-girl"]) {
        expectError(await react(u.othello, id, { emoji_name }), 400, `Emoji '${emoji_name}' does not exist`);
      }
      const unicode = (emoji_name: string, emoji_code: string) =>
        react(u.othello, id, { emoji_name, emoji_code, reaction_type: "unicode_emoji" });
      // With U+FE0F, and with a skin tone: not codes Zulip knows.
      expectError(await unicode("heart", "2764-fe0f"), 400, "Invalid emoji code.");
      expectError(await unicode("+1", "1f44d-1f3fb"), 400, "Invalid emoji code.");
      // A name must be one of that very code's names: cat is not the cat face.
      expectError(await unicode("cat", "1f431"), 400, "Invalid emoji name.");
      expectError(await unicode("thumbsup", "1f44d"), 400, "Invalid emoji name.");
      expect(await reactionsOf(id)).to.deep.equal([]);
      expectSuccess(await unicode("kitten", "1f431"));
      expectSuccess(await unicode("heart", "2764"));
      expect(await reactionsOf(id)).to.deep.equal([
        ["kitten", "1f431"],
        ["heart", "2764"],
      ]);
    });
  });

  it("in status emoji: any of Zulip's names, its code; others refused", async function () {
    const status = async () =>
      expectSuccess(await u.othello.client.get(`/users/${u.hamlet.id}/status`)).status as Record<
        string,
        unknown
      >;
    expectSuccess(await u.hamlet.client.post("/users/me/status", { emoji_name: "thumbs_up" }));
    expect(await status()).to.deep.include({ emoji_name: "thumbs_up", emoji_code: "1f44d" });
    expectSuccess(await u.hamlet.client.post("/users/me/status", { emoji_name: "calendar" }));
    expect(await status()).to.deep.include({ emoji_name: "calendar", emoji_code: "1f4c5" });
    expectError(
      await u.hamlet.client.post("/users/me/status", { emoji_name: "thumbsup" }),
      400,
      "Emoji 'thumbsup' does not exist",
    );
    expectError(
      await u.hamlet.client.post("/users/me/status", {
        emoji_name: "heart",
        emoji_code: "2764-fe0f",
        reaction_type: "unicode_emoji",
      }),
      400,
      "Invalid emoji code.",
    );
    expect(await status()).to.deep.include({ emoji_name: "calendar", emoji_code: "1f4c5" });
  });

  it("in messages: :name: takes any of Zulip's names; emoji characters get the canonical name", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "names", ":thumbs_up: :cat: :thumbsup: 🐈 ❤️");
    const { message } = expectSuccess(await u.hamlet.client.get(`/messages/${id}`)) as {
      message: { content: string };
    };
    expect(message.content).to.equal(
      '<p><span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span> ' +
        '<span aria-label="cat" class="emoji emoji-1f408" role="img" title="cat">:cat:</span> :thumbsup: ' +
        '<span aria-label="cat" class="emoji emoji-1f408" role="img" title="cat">:cat:</span> ' +
        '<span aria-label="heart" class="emoji emoji-2764" role="img" title="heart">:heart:</span></p>',
    );
  });
});

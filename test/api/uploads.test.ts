import { expect } from "chai";
import { createChannel } from "../helpers/channels.js";
import { cast, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { register, pendingEvents, verifyRegisterParity } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { getFile, hasAttachment, pathIdOf, postUpload, upload } from "../helpers/uploads.js";

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe("uploaded files: POST /user_uploads and serving /user_uploads", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer({ max_file_upload_size_mib: 1 });
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
    await createChannel(u.hamlet, "Secret", [u.hamlet, u.othello], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const read = (user: TestUser | null, url: string, headers?: Record<string, string>) =>
    getFile(server.url, url, user, headers);
  const attachmentCount = async () => Number((await server.app.knex("attachments").count({ n: "*" }))[0]!.n);

  it("stores a file and serves it back byte for byte, typed from its bytes", async function () {
    const bytes = Buffer.alloc(300_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
    const res = expectSuccess(await postUpload(u.hamlet, "data file (1).bin", bytes));
    expect(res.url).to.match(/^\/user_uploads\/\d+\/[0-9a-f]{2}\/[\w-]{24}\/data-file-1.bin$/);
    expect(res).to.include({ uri: res.url, filename: "data file (1).bin" });
    const got = await read(u.hamlet, res.url as string);
    expect(got.status).to.equal(200);
    expect(got.bytes.equals(bytes)).to.equal(true);
    expect(got.headers.get("x-content-type-options")).to.equal("nosniff");

    // The client says text/plain and the name says .txt: the bytes say PNG.
    const png = await upload(u.hamlet, "notes.txt", PNG_1X1, "text/plain");
    const served = await read(u.hamlet, png);
    expect(served.headers.get("content-type")).to.equal("image/png");
    expect(served.headers.get("content-disposition")).to.match(/^inline;/);
  });

  it("serves HTML and SVG only as downloads, and answers byte ranges", async function () {
    const html = await upload(
      u.hamlet,
      "page.png",
      Buffer.from("<!DOCTYPE html><script>alert(1)</script>"),
      "image/png",
    );
    const page = await read(u.hamlet, html);
    expect(page.headers.get("content-type")).to.match(/^text\/html/);
    expect(page.headers.get("content-disposition")).to.match(/^attachment;/);
    const svg = await upload(
      u.hamlet,
      "x.svg",
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
    );
    const image = await read(u.hamlet, svg);
    expect(image.headers.get("content-type")).to.equal("image/svg+xml");
    expect(image.headers.get("content-disposition")).to.match(/^attachment;/);

    const text = await upload(u.hamlet, "abc.txt", Buffer.from("0123456789"));
    const part = await read(u.hamlet, text, { range: "bytes=2-5" });
    expect(part.status).to.equal(206);
    expect(part.bytes.toString()).to.equal("2345");
    expect(part.headers.get("content-range")).to.equal("bytes 2-5/10");
    expect((await read(u.hamlet, text, { range: "bytes=20-" })).status).to.equal(416);
  });

  it("refuses a file over max_file_upload_size_mib with a 413, no file and no row left", async function () {
    const before = await attachmentCount();
    const res = await postUpload(u.hamlet, "big.bin", Buffer.alloc(1024 * 1024 + 1));
    expectError(
      res,
      413,
      "File is larger than this server's configured maximum upload size (1 MiB).",
      "PAYLOAD_TOO_LARGE",
    );
    expect(await attachmentCount()).to.equal(before);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(server.app.uploads.tempDir())).to.deep.equal([]);
    const state = await register(u.hamlet.client, { fetch_event_types: ["realm"] });
    expect(state.max_file_upload_size_mib).to.equal(1);
  });

  it("refuses a request with no file or with several", async function () {
    expectError(
      await u.hamlet.client.post("/user_uploads", {}, { encoding: "multipart" }),
      400,
      "You must specify a file to upload",
    );
    const form = new FormData();
    form.append("a", new Blob([Buffer.from("a")]), "a.txt");
    form.append("b", new Blob([Buffer.from("b")]), "b.txt");
    const { userAuth } = await import("../helpers/uploads.js");
    const res = await fetch(`${server.url}/api/v1/user_uploads`, {
      method: "POST",
      headers: userAuth(u.hamlet),
      body: form,
    });
    expectError(
      { status: res.status, headers: res.headers, body: await res.json() },
      400,
      "You may only upload one file at a time",
    );
  });

  it("lets only the uploader read an unshared file; others get 403, spectators 401", async function () {
    const url = await upload(u.hamlet, "private.txt", Buffer.from("mine"));
    expect((await read(u.hamlet, url)).status).to.equal(200);
    const refused = await read(u.othello, url);
    expect(refused.status).to.equal(403);
    expect(refused.bytes.toString()).not.to.contain("mine");
    expect((await read(null, url)).status).to.equal(401);
    expect((await read(u.iago, url)).status).to.equal(403);
    const missing = await read(u.hamlet, `${url}x`);
    expect(missing.status).to.equal(404);
  });

  it("shares a file with the recipients of a direct message that links it, and no one else", async function () {
    const url = await upload(u.hamlet, "dm.txt", Buffer.from("for othello"));
    const id = await sendDirect(u.hamlet, [u.othello], `[dm.txt](${url})`);
    expect(await hasAttachment(server, id)).to.equal(true);
    expect((await read(u.othello, url)).bytes.toString()).to.equal("for othello");
    expect((await read(u.cordelia, url)).status).to.equal(403);
  });

  it("shares a file linked in a public channel with members but not guests; a private one with subscribers", async function () {
    const open = await upload(u.hamlet, "open.txt", Buffer.from("open"));
    await sendToChannel(u.hamlet, "Denmark", "files", `[open.txt](${open})`);
    expect((await read(u.cordelia, open)).status).to.equal(200);
    expect((await read(u.polonius, open)).status).to.equal(403);

    const secret = await upload(u.hamlet, "secret.txt", Buffer.from("secret"));
    await sendToChannel(u.hamlet, "Secret", "files", `[secret.txt](${secret})`);
    expect((await read(u.othello, secret)).status).to.equal(200);
    expect((await read(u.cordelia, secret)).status).to.equal(403);
    expect((await read(u.iago, secret)).status).to.equal(403);
  });

  it("moving the linking message into a private channel changes who may read the file", async function () {
    const url = await upload(u.hamlet, "moved.txt", Buffer.from("moved"));
    const id = await sendToChannel(u.hamlet, "Denmark", "to move", `[moved.txt](${url})`);
    expect((await read(u.cordelia, url)).status).to.equal(200);
    const secretId = (await server.app.knex("streams").where({ name: "Secret" }).first<{ id: number }>("id"))
      .id;
    expectSuccess(
      await u.hamlet.client.patch(`/messages/${id}`, { stream_id: secretId, propagate_mode: "change_one" }),
    );
    expect((await read(u.cordelia, url)).status).to.equal(403);
    expect((await read(u.othello, url)).status).to.equal(200);
  });

  it("a message cannot share a file its sender may not read (no claim, no access)", async function () {
    const url = await upload(u.hamlet, "hamlets.txt", Buffer.from("hamlet's"));
    const id = await sendToChannel(u.othello, "Denmark", "steal", `[look](${url})`);
    expect(await hasAttachment(server, id)).to.equal(false);
    expect(await server.app.knex("attachment_messages").where({ message_id: id })).to.deep.equal([]);
    expect((await read(u.cordelia, url)).status).to.equal(403);
  });

  it("an edit that removes the link takes the access away; one that adds it gives it", async function () {
    const url = await upload(u.hamlet, "edit.txt", Buffer.from("edit"));
    const id = await sendToChannel(u.hamlet, "Denmark", "edits", "nothing yet");
    expect((await read(u.cordelia, url)).status).to.equal(403);
    expectSuccess(await u.hamlet.client.patch(`/messages/${id}`, { content: `now [edit.txt](${url})` }));
    expect((await read(u.cordelia, url)).status).to.equal(200);
    expect(await hasAttachment(server, id)).to.equal(true);
    expectSuccess(await u.hamlet.client.patch(`/messages/${id}`, { content: "gone" }));
    expect((await read(u.cordelia, url)).status).to.equal(403);
    expect(await hasAttachment(server, id)).to.equal(false);
  });

  it("gives a temporary URL to those who may read the file, valid without credentials for 60 s", async function () {
    const url = await upload(u.hamlet, "temp file.txt", Buffer.from("temporary"));
    const body = expectSuccess(await u.hamlet.client.get(url));
    const temporary = body.url as string;
    expect(temporary).to.match(/^\/user_uploads\/temporary\/[0-9A-F]+\/temp-file.txt$/);
    expect((await read(null, temporary)).bytes.toString()).to.equal("temporary");
    expectError(await u.othello.client.get(url), 400, "You are not authorized to view this file.");
    expectError(
      await u.othello.client.get(`${url}nope`),
      400,
      "This file does not exist or has been deleted.",
    );
    const forged = temporary.replace(/\/([0-9A-F]+)\//, (_m, token: string) => `/${token.slice(0, -2)}00/`);
    expect((await read(null, forged)).status).to.equal(400);
    server.clock.advance(61_000);
    expect((await read(null, temporary)).status).to.equal(400);
  });
});

describe("attachments: GET /attachments, DELETE /attachments/{id}, events, sweep", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer({ realm_upload_quota_mib: 1 });
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  it("lists the user's files with the messages linking them, and the space used", async function () {
    const url = await upload(u.hamlet, "listed.txt", Buffer.from("12345"));
    const id = await sendToChannel(u.hamlet, "Denmark", "t", `[listed](${url})`);
    const body = expectSuccess(await u.hamlet.client.get("/attachments"));
    const listed = (body.attachments as Array<Record<string, unknown>>).find(
      (a) => a.path_id === pathIdOf(url),
    );
    expect(listed).to.include({ name: "listed.txt", size: 5 });
    expect((listed!.messages as Array<{ id: number }>).map((m) => m.id)).to.deep.equal([id]);
    expect(body.upload_space_used).to.be.at.least(5);
    expect(expectSuccess(await u.othello.client.get("/attachments")).attachments).to.deep.equal([]);
  });

  it("sends attachment events to the uploader only; register parity holds", async function () {
    const other = await register(u.othello.client);
    let url = "";
    const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      url = await upload(u.hamlet, "evented.txt", Buffer.from("ev"));
      await sendToChannel(u.hamlet, "Denmark", "t", `[e](${url})`);
    });
    const ops = events.filter((e) => e.type === "attachment").map((e) => e.op as string);
    expect(ops).to.deep.equal(["add", "update"]);
    const attachmentEvent = events.find((e) => e.type === "attachment")!;
    expect(attachmentEvent.attachment).to.include({ path_id: pathIdOf(url), name: "evented.txt", size: 2 });
    const othersEvents = await pendingEvents(u.othello.client, other.queue_id as string);
    expect(othersEvents.filter((e) => e.type === "attachment")).to.deep.equal([]);
  });

  it("deletes a file only for its owner; others are refused and the file stays", async function () {
    const url = await upload(u.hamlet, "delete-me.txt", Buffer.from("bye"));
    const row = await server.app
      .knex("attachments")
      .where({ path_id: pathIdOf(url) })
      .first<{ id: number }>("id");
    expectError(await u.othello.client.delete(`/attachments/${row.id}`), 400, "Invalid attachment");
    expectError(await u.iago.client.delete(`/attachments/${row.id}`), 400, "Invalid attachment");
    expect((await getFile(server.url, url, u.hamlet)).status).to.equal(200);
    const queue = await register(u.hamlet.client);
    expectSuccess(await u.hamlet.client.delete(`/attachments/${row.id}`));
    expect((await getFile(server.url, url, u.hamlet)).status).to.equal(404);
    const events = await pendingEvents(u.hamlet.client, queue.queue_id as string);
    expect(events.find((e) => e.type === "attachment")).to.deep.include({
      op: "remove",
      attachment: { id: row.id },
    });
    expectError(await u.hamlet.client.delete(`/attachments/${row.id}`), 400, "Invalid attachment");
  });

  it("refuses uploads beyond the organization's quota", async function () {
    const res = await postUpload(u.hamlet, "quota.bin", Buffer.alloc(1024 * 1024));
    expectError(res, 400, "Upload would exceed your organization's upload quota.", "REALM_UPLOAD_QUOTA");
    const state = await register(u.hamlet.client, { fetch_event_types: ["realm"] });
    expect(state.realm_upload_quota_mib).to.equal(1);
  });

  it("the sweep removes unclaimed files after the retention period and keeps linked ones", async function () {
    const { sweepUploads } = await import("../../src/actions/uploads.js");
    const kept = await upload(u.hamlet, "kept.txt", Buffer.from("kept"));
    await sendToChannel(u.hamlet, "Denmark", "t", `[k](${kept})`);
    const dropped = await upload(u.hamlet, "dropped.txt", Buffer.from("dropped"));
    await sweepUploads(server.app);
    expect((await getFile(server.url, dropped, u.hamlet)).status).to.equal(200);
    server.clock.advance((server.app.config.unclaimed_upload_retention_days * 86400 + 1) * 1000);
    await sweepUploads(server.app);
    expect((await getFile(server.url, dropped, u.hamlet)).status).to.equal(404);
    expect((await getFile(server.url, kept, u.hamlet)).bytes.toString()).to.equal("kept");
  });
});

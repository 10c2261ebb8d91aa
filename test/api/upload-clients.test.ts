import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectSuccess, type ApiResponse } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { getFile, userAuth } from "../helpers/uploads.js";

/**
 * Uploads and downloads exactly as the real clients send them (read from their sources):
 *
 * - zulip-flutter (the mobile app), lib/api/core.dart postFileFromStream: package:http's
 *   MultipartRequest, one part named "file" with the picked file's name and MIME type,
 *   lower-case part headers, `"` and newlines in the name %-encoded, other characters raw
 *   UTF-8; reads `uri` from the answer (messages.g.dart) and writes `[name](uri)`. A tapped
 *   /user_uploads/<realm>/<path> link (internal_link.dart) becomes
 *   GET /api/v1/user_uploads/<realm>/<path> with the path as Dart's Uri has it (non-ASCII
 *   %-encoded); the answer's `url` is resolved against the realm and opened in a browser,
 *   without credentials.
 * - zulip-terminal does not upload; it downloads a /user_uploads/... link (helper.py
 *   download_media) with requests and HTTP Basic auth, following the link as written in the
 *   message, joined to the server URL. Its library, python-zulip-api, uploads with requests'
 *   `files=[(f.name, f)]`: the part is named by the file's path, has the base name as its
 *   filename and no Content-Type; scripts read `uri`.
 */

const PDF = Buffer.concat([Buffer.from("%PDF-1.4\n"), randomBytes(2000), Buffer.from("\n%%EOF\n")]);

/** package:http's MultipartRequest body for one file (multipart_request.dart). */
function dartMultipart(field: string, filename: string, contentType: string, bytes: Buffer) {
  const boundary = `dart-http-boundary-${randomBytes(26).toString("hex").slice(0, 51)}`;
  const browserEncode = (value: string) => value.replace(/\r\n|\r|\n/g, "%0D%0A").replace(/"/g, "%22");
  const head =
    `--${boundary}\r\ncontent-type: ${contentType}\r\n` +
    `content-disposition: form-data; name="${browserEncode(field)}"; filename="${browserEncode(filename)}"\r\n\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(head, "utf8"), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

/** requests' encode_multipart_formdata for files=[(path, file)] (urllib3 2's HTML5 quoting). */
function requestsMultipart(path: string, bytes: Buffer) {
  const boundary = randomBytes(16).toString("hex");
  const quote = (value: string) => value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const basename = path.slice(path.lastIndexOf("/") + 1);
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${quote(path)}"; filename="${quote(basename)}"\r\n\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(head, "utf8"), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

async function postRaw(
  user: TestUser,
  multipart: { contentType: string; body: Buffer },
  userAgent: string,
): Promise<ApiResponse> {
  const res = await fetch(new URL("/api/v1/user_uploads", user.client.baseUrl), {
    method: "POST",
    headers: {
      ...userAuth(user),
      "user-agent": userAgent,
      "content-type": multipart.contentType,
      "content-length": String(multipart.body.length),
    },
    body: multipart.body,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** What Dart's Uri does to a path it parses: non-ASCII characters %-encoded as UTF-8. */
const dartUriPath = (path: string) => path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));

describe("the mobile app's and zulip-terminal's upload calls", function () {
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

  it("mobile app: uploads as package:http does, reads `uri`, opens the link through a temporary URL", async function () {
    const name = 'Straße "Plan" 2026.pdf';
    const body = expectSuccess(
      await postRaw(
        u.hamlet,
        dartMultipart("file", name, "application/pdf", PDF),
        "ZulipFlutter/30.0.274+30274 (Android 15)",
      ),
    );
    expect(body.filename).to.equal(name);
    const uri = body.uri as string;
    expect(uri).to.equal(body.url);
    expect(uri).to.match(/^\/user_uploads\/\d+\/[0-9a-f]{2}\/[\w-]{24}\/Straße-Plan-2026\.pdf$/);

    // The compose box's link, sent and shared with Othello.
    await sendToChannel(u.hamlet, "Denmark", "plans", `[${name}](${uri})`);

    // Tapping the link: UserUploadLink's realm ID and path, as Dart's Uri has them.
    const match = /^\/user_uploads\/(\d+)\/(.+)$/.exec(dartUriPath(uri))!;
    const temporary = expectSuccess(await u.othello.client.get(`/user_uploads/${match[1]}/${match[2]}`))
      .url as string;
    // tryResolveUrl against the realm, opened by a browser: no credentials, path %-encoded.
    const opened = await getFile(server.url, dartUriPath(temporary), null);
    expect(opened.status).to.equal(200);
    expect(opened.bytes.equals(PDF)).to.equal(true);
    expect(opened.headers.get("content-type")).to.equal("application/pdf");

    // Images in messages are fetched with the account's credentials, the path as Uri has it.
    const direct = await getFile(server.url, dartUriPath(uri), u.othello);
    expect(direct.status).to.equal(200);
    expect(direct.bytes.equals(PDF)).to.equal(true);
  });

  it("zulip-terminal: downloads a message's upload link with Basic auth; python-zulip-api's upload works", async function () {
    const body = expectSuccess(
      await postRaw(u.hamlet, requestsMultipart("/home/hamlet/notes v2.pdf", PDF), "ZulipTerminal/0.7.0"),
    );
    expect(body).to.include({ filename: "notes v2.pdf", url: body.uri });
    const uri = body.uri as string;
    expect(uri).to.match(/\/notes-v2\.pdf$/);
    await sendToChannel(u.hamlet, "Denmark", "notes", `[notes](${uri})`);

    // download_media: requests.get(urljoin(server_url, link), auth=HTTPBasicAuth(email, api_key)).
    const res = await fetch(new URL(uri, server.url), {
      headers: { ...userAuth(u.othello), "user-agent": "ZulipTerminal/0.7.0" },
      redirect: "follow",
    });
    expect(res.status).to.equal(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).to.equal(true);
    // Without credentials (as a browser would open it) the file is refused.
    expect((await getFile(server.url, uri, null)).status).to.equal(401);
  });
});

import { randomBytes } from "node:crypto";
import { readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { cast, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type ApiResponse } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { userAuth } from "../helpers/uploads.js";

const BOUNDARY = "Z";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A file part as curl and the clients send it; without a Content-Type, as python-zulip-api. */
const filePart = (name: string, bytes: string | Buffer, type?: string): Buffer =>
  Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.bin"\r\n` +
        (type ? `Content-Type: ${type}\r\n` : "") +
        "\r\n",
    ),
    Buffer.from(bytes),
    Buffer.from("\r\n"),
  ]);
const END = Buffer.from(`--${BOUNDARY}--\r\n`);

/** The issue's reproduction: thousands of tiny file parts, far past the 10-file limit. */
const manyFileParts = (count: number): Buffer =>
  Buffer.concat([...Array.from({ length: count }, (_, i) => filePart(`f${i}`, "vvvv")), END]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("upload temporary files: none left behind by a refused request, and private", function () {
  let server: TestServer;
  let u: Cast;
  let tempDir: string;
  let umask: number;

  before(async function () {
    // The usual umask, which would leave new files readable by everyone.
    umask = process.umask(0o022);
    server = await startTestServer({
      max_file_upload_size_mib: 1,
      max_avatar_file_size_mib: 1,
      max_emoji_file_size_mib: 1,
    });
    u = cast(await server.factory.realm());
    tempDir = server.app.uploads.tempDir();
  });
  // Each test starts from an empty directory: one test's leftovers are not another's failure.
  beforeEach(function () {
    for (const name of readdirSync(tempDir)) rmSync(join(tempDir, name), { force: true });
  });
  after(async function () {
    await server.close();
    process.umask(umask);
  });

  const post = async (user: TestUser, path: string, body: Buffer): Promise<ApiResponse> => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method: "POST",
      headers: { ...userAuth(user), "content-type": CONTENT_TYPE },
      body,
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  /** Empty when the answer came, and still empty a moment later (nothing written late). */
  const expectTempDirEmpty = async (what: string) => {
    expect(readdirSync(tempDir), `${what}: when answered`).to.deep.equal([]);
    await sleep(100);
    expect(readdirSync(tempDir), `${what}: after the answer`).to.deep.equal([]);
  };

  /** No attachment, custom emoji or uploaded avatar came of a refused request. */
  const expectNothingStored = async () => {
    const count = async (table: string) => Number((await server.app.knex(table).count({ n: "*" }))[0]!.n);
    expect(await count("attachments")).to.equal(0);
    expect(await count("realm_emoji")).to.equal(0);
    const me = expectSuccess(await u.iago.client.get("/users/me"));
    expect(me.avatar_version).to.equal(1);
  };

  const endpoints = ["/user_uploads", "/users/me/avatar", "/realm/emoji/green_tick"];
  /** Each endpoint's answer to a file over its 1 MiB limit. */
  const tooLarge: Record<string, [number, string, string]> = {
    "/user_uploads": [
      413,
      "File is larger than this server's configured maximum upload size (1 MiB).",
      "PAYLOAD_TOO_LARGE",
    ],
    "/users/me/avatar": [413, "Uploaded file is larger than the allowed limit of 1 MiB", "PAYLOAD_TOO_LARGE"],
    "/realm/emoji/green_tick": [
      400,
      "Uploaded file is larger than the allowed limit of 1 MiB",
      "BAD_REQUEST",
    ],
  };

  it("refuses thousands of tiny file parts at the 10-file limit, leaving no temporary file", async function () {
    const body = manyFileParts(3000);
    for (const path of endpoints) {
      expectError(await post(u.iago, path, body), 400, "You may only upload one file at a time");
      await expectTempDirEmpty(path);
    }
    await expectNothingStored();
  });

  it("refuses 11 files (exactly one past the limit) and a file over the size limit, leaving nothing", async function () {
    const eleven = Buffer.concat([...Array.from({ length: 11 }, (_, i) => filePart(`f${i}`, "x")), END]);
    const big = Buffer.concat([filePart("big", Buffer.alloc(1024 * 1024 + 1)), END]);
    for (const path of endpoints) {
      expectError(await post(u.iago, path, eleven), 400, "You may only upload one file at a time");
      await expectTempDirEmpty(`${path}, 11 files`);
      expectError(await post(u.iago, path, big), ...tooLarge[path]!);
      await expectTempDirEmpty(`${path}, too big`);
    }
    await expectNothingStored();
  });

  it("an avatar or emoji that is not an image is refused, and its file removed", async function () {
    const text = Buffer.concat([filePart("file", "not an image", "image/png"), END]);
    expectError(
      await post(u.iago, "/users/me/avatar", text),
      400,
      "Could not decode image; did you upload an image file?",
      "BAD_IMAGE",
    );
    await expectTempDirEmpty("avatar");
    expectError(
      await post(u.iago, "/realm/emoji/green_tick", text),
      400,
      "Invalid image format",
      "BAD_IMAGE",
    );
    await expectTempDirEmpty("emoji");
  });

  it("a request that fails authentication leaves nothing", async function () {
    const body = manyFileParts(50);
    const res = await fetch(`${server.url}/api/v1/user_uploads`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${u.iago.email}:wrong`).toString("base64")}`,
        "content-type": CONTENT_TYPE,
      },
      body,
    });
    expect(res.status).to.equal(401);
    await res.arrayBuffer();
    await expectTempDirEmpty("unauthenticated");
  });

  it("writes the file 0600 while it arrives, and removes it when the client goes away mid-body", async function () {
    const req = request(`${server.url}/api/v1/user_uploads`, {
      method: "POST",
      headers: { ...userAuth(u.iago), "content-type": CONTENT_TYPE, "content-length": "500000" },
    });
    req.on("error", () => undefined);
    req.write(filePart("slow", Buffer.alloc(64 * 1024, 1)).subarray(0, 60 * 1024));
    let files: string[] = [];
    for (let i = 0; i < 200 && files.length === 0; i++) {
      await sleep(25);
      files = readdirSync(tempDir);
    }
    expect(files).to.have.length(1);
    expect(mode(join(tempDir, files[0]!))).to.equal("600");
    req.destroy();
    for (let i = 0; i < 200 && readdirSync(tempDir).length > 0; i++) await sleep(25);
    expect(readdirSync(tempDir)).to.deep.equal([]);
  });

  it("file parts sent to an endpoint that takes none are refused without a file written anywhere", async function () {
    // A marker only these parts carry: other processes' files in the shared directory do not count.
    const marker = randomBytes(12).toString("hex");
    const body = Buffer.concat([
      ...Array.from({ length: 3000 }, (_, i) => filePart(`f${i}`, marker, "text/plain")),
      END,
    ]);
    const written = () =>
      readdirSync(tmpdir()).filter((name) => {
        const path = join(tmpdir(), name);
        try {
          return statSync(path).size === marker.length && readFileSync(path, "utf8") === marker;
        } catch {
          return false; // removed meanwhile, or not a file
        }
      });
    for (const authorization of [userAuth(u.iago).authorization, undefined]) {
      const res = await fetch(`${server.url}/api/v1/messages`, {
        method: "POST",
        headers: { ...(authorization ? { authorization } : {}), "content-type": CONTENT_TYPE },
        body,
      });
      expect(res.status).to.equal(413);
      expect(await res.json()).to.include({ result: "error", code: "PAYLOAD_TOO_LARGE" });
      await sleep(100);
      expect(written(), authorization ? "member" : "anonymous").to.deep.equal([]);
    }
  });

  it("an accepted upload still works and leaves no temporary file", async function () {
    const body = Buffer.concat([filePart("file", "hello"), END]);
    const res = await post(u.iago, "/user_uploads", body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.filename).to.equal("file.bin");
    await expectTempDirEmpty("accepted");
  });
});

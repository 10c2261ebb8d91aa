import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBlobStore } from "../../src/lib/storage/local.js";
import { writeBlobsThenRecord } from "../../src/lib/storage/write-then-record.js";

describe("files written before the transaction that records them", function () {
  let dir: string;
  let store: LocalBlobStore;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), "chatd-blobs-"));
    store = new LocalBlobStore(dir);
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  const blobs = [
    ["avatars/1/a.png", Buffer.from("a")] as const,
    ["avatars/1/b.png", Buffer.from("b")] as const,
  ];

  it("are written before the record runs, and kept when it succeeds", async function () {
    let seenDuringRecord: unknown[] = [];
    const result = await writeBlobsThenRecord(store, blobs, async () => {
      seenDuringRecord = await Promise.all(blobs.map(([key]) => store.stat(key)));
      return 42;
    });
    expect(result).to.equal(42);
    expect(seenDuringRecord.every((info) => info !== null)).to.equal(true);
    expect((await store.readBytes("avatars/1/b.png")).toString()).to.equal("b");
  });

  it("are deleted when the record fails, which fails with its own error", async function () {
    let error: unknown;
    try {
      await writeBlobsThenRecord(store, blobs, () => Promise.reject(new Error("rolled back")));
    } catch (err) {
      error = err;
    }
    expect((error as Error).message).to.equal("rolled back");
    for (const [key] of blobs) expect(await store.stat(key)).to.equal(null);
  });
});

import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { expect } from "chai";
import yazl from "yazl";
import { FileConverter } from "../../src/cli/import/slack/files.js";
import { EntryTooLarge, SlackZip } from "../../src/cli/import/slack/slack-zip.js";

/** The Slack import copies a file's bytes only within the upload limits, counting what it inflates. */
describe("Slack import: upload size limits", function () {
  let root: string;
  let zip: SlackZip;
  const big = Buffer.alloc(3000, 7);
  const small = Buffer.from("small file");

  before(async function () {
    root = mkdtempSync(join(tmpdir(), "chatd-slack-limits-"));
    const file = new yazl.ZipFile();
    file.addBuffer(big, "__uploads/F1/big.bin");
    file.addBuffer(small, "__uploads/F2/small.txt");
    file.end();
    const out = createWriteStream(join(root, "export.zip"));
    file.outputStream.pipe(out);
    await once(out, "close");
    zip = await SlackZip.open(join(root, "export.zip"));
  });
  after(function () {
    zip?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("copyTo refuses an entry past the limit and leaves no partial file", async function () {
    const target = join(root, "big-copy");
    let error: unknown;
    try {
      await zip.copyTo("__uploads/F1/big.bin", target, 1000);
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(EntryTooLarge);
    expect(existsSync(target)).to.equal(false);
    await zip.copyTo("__uploads/F1/big.bin", target, 3000);
    expect(readFileSync(target).equals(big)).to.equal(true);
  });

  it("a file past the per-file limit stays a link to Slack, and is said", async function () {
    const skipped: string[] = [];
    const files = new FileConverter(zip, join(root, "out1"), 1, {
      perFile: 1000,
      total: 10_000,
      onSkipped: (m) => skipped.push(m),
    });
    const result = await files.convert(
      {
        files: [
          { id: "F1", name: "big.bin", title: "Big", url_private: "https://files.slack.com/F1/big.bin" },
          { id: "F2", name: "small.txt", title: "Small" },
        ],
      },
      "general/2024-01-15.json[0]",
      100,
      10,
      "a@example.com",
      1_700_000_000,
    );
    expect(result.content.split("\n")[0]).to.equal("[Big](https://files.slack.com/F1/big.bin)");
    expect(result.content.split("\n")[1]).to.match(/^\[Small\]\(\/user_uploads\/1\/.+\/small\.txt\)$/);
    expect(files.uploadRecords.map((r) => r.size)).to.deep.equal([small.length]);
    expect(skipped).to.deep.equal([
      "__uploads/F1/big.bin is not imported (it passes the upload size limit): the message keeps Slack's link, if any",
    ]);
  });

  it("files past the import's total stay links", async function () {
    const skipped: string[] = [];
    const files = new FileConverter(zip, join(root, "out2"), 1, {
      perFile: 5000,
      total: 3005,
      onSkipped: (m) => skipped.push(m),
    });
    const result = await files.convert(
      {
        files: [
          { id: "F1", name: "big.bin", title: "Big" },
          {
            id: "F2",
            name: "small.txt",
            title: "Small",
            url_private: "https://files.slack.com/F2/small.txt",
          },
        ],
      },
      "general/2024-01-15.json[0]",
      100,
      10,
      "a@example.com",
      1_700_000_000,
    );
    expect(files.uploadRecords.map((r) => r.size)).to.deep.equal([big.length]);
    expect(result.content.split("\n")[1]).to.equal("[Small](https://files.slack.com/F2/small.txt)");
    expect(skipped).to.deep.equal([
      "__uploads/F2/small.txt is not imported (it passes the import's total for files): the message keeps Slack's link, if any",
    ]);
  });
});

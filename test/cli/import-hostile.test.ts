import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { ROOT, chatd } from "../helpers/cli.js";
import { createEmptyDatabase, onPostgres } from "../helpers/postgres.js";

/**
 * An unpacked export is a directory an operator was handed: a symbolic link in it must
 * not bring a file from elsewhere on the machine into the store, where uploads and
 * avatars are served (avatars to anyone).
 */

const FIXTURE = join(ROOT, "test", "fixtures", "zulip-export");
const UPLOAD = "2/ab/abcdefghijklmnopqrstuvwx/notes.txt";
const SECRET = "root:x:0:0:not really /etc/passwd\n";

describe("chatd import zulip refuses links out of an unpacked export", function () {
  let root: string;
  let secret: string;

  before(function () {
    root = mkdtempSync(join(tmpdir(), "chatd-import-hostile-"));
    secret = join(root, "secret.txt");
    writeFileSync(secret, SECRET);
  });
  after(function () {
    rmSync(root, { recursive: true, force: true });
  });

  const copy = (name: string) => {
    const dir = join(root, name);
    cpSync(FIXTURE, dir, { recursive: true });
    return dir;
  };

  /** Imports dir; expects a refusal with the message, and an empty (or no) data directory. */
  const refused = async (dir: string, message: string) => {
    const target = join(root, `data-${Math.random().toString(36).slice(2)}`);
    const env = onPostgres() ? { CHATD_DATABASE_URL: await createEmptyDatabase() } : {};
    const result = await chatd(["--data-dir", target, "import", "zulip", dir], { env });
    expect(result.code, result.stdout).to.not.equal(0);
    expect(result.stderr).to.include(message);
    expect(result.stderr).to.not.include(SECRET.trim());
    if (existsSync(target))
      expect(readdirSync(target).filter((f) => f !== "settings.json")).to.deep.equal([]);
  };

  it("an upload that is a symbolic link to a file outside", async function () {
    const dir = copy("linked-upload");
    rmSync(join(dir, "uploads", UPLOAD));
    symlinkSync(secret, join(dir, "uploads", UPLOAD));
    await refused(dir, `uploads/${UPLOAD} (named by uploads/records.json`);
  });

  it("an upload under a folder that is a symbolic link", async function () {
    const dir = copy("linked-folder");
    const linked = join(root, "elsewhere", "abcdefghijklmnopqrstuvwx");
    mkdirSync(linked, { recursive: true });
    cpSync(secret, join(linked, "notes.txt"));
    rmSync(join(dir, "uploads", "2", "ab"), { recursive: true });
    symlinkSync(join(root, "elsewhere"), join(dir, "uploads", "2", "ab"));
    await refused(dir, "is a link: the export must hold the file itself");
  });

  it("an emoji image that is a symbolic link", async function () {
    const dir = copy("linked-emoji");
    const image = join(dir, "emoji", "2", "emoji", "images", "1.png");
    rmSync(image);
    symlinkSync(secret, image);
    await refused(dir, "is a link: the export must hold the file itself");
  });
});

import { createWriteStream, rmSync } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { SlackImportError } from "./errors.js";

/** A day file or users.json far larger than any Slack writes is refused before it is inflated. */
const MAX_JSON_BYTES = 256 * 2 ** 20;

/** A file's bytes that would pass the import's limit (a deflate bomb, or a file too large to upload). */
export class EntryTooLarge extends Error {
  override name = "EntryTooLarge";
}

/**
 * A Slack export zip read entry by entry: the central directory is indexed once (names and
 * sizes only), then each file is inflated when asked for, so memory holds one file at a time.
 */
export class SlackZip {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    /** Entry name (UTF-8) -> entry, files only. */
    readonly entries: Map<string, yauzl.Entry>,
    readonly path: string,
  ) {}

  static async open(path: string): Promise<SlackZip> {
    let zip: yauzl.ZipFile;
    try {
      // Strings undecoded: Slack writes UTF-8 names without the zip's UTF-8 flag, which
      // yauzl would read as CP437 (Zulip's importer re-decodes them the same way).
      zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
        yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: false }, (err, z) =>
          err ? reject(err) : resolve(z),
        ),
      );
    } catch (err) {
      throw new SlackImportError(`${path} is not a zip archive (${(err as Error).message})`);
    }
    const entries = new Map<string, yauzl.Entry>();
    try {
      await new Promise<void>((resolve, reject) => {
        zip.on("entry", (entry: yauzl.Entry) => {
          const name = (entry.fileName as unknown as Buffer).toString("utf8");
          if (!name.endsWith("/")) entries.set(name, entry);
          zip.readEntry();
        });
        zip.on("end", () => resolve());
        zip.on("error", reject);
        zip.readEntry();
      });
    } catch (err) {
      zip.close();
      throw new SlackImportError(`${path} is a damaged zip archive (${(err as Error).message})`);
    }
    return new SlackZip(zip, entries, path);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  private async stream(name: string): Promise<NodeJS.ReadableStream> {
    const entry = this.entries.get(name);
    if (!entry) throw new SlackImportError(`${name} is missing from ${this.path}`);
    return new Promise((resolve, reject) =>
      this.zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
    );
  }

  async readBuffer(name: string): Promise<Buffer> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await this.stream(name)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    } catch (err) {
      if (err instanceof SlackImportError) throw err;
      throw new SlackImportError(`${name} in ${this.path} is damaged (${(err as Error).message})`);
    }
  }

  /** The parsed JSON of one file; a syntax error names the file. */
  async readJson(name: string): Promise<unknown> {
    // yauzl checks each entry against its declared size, so a zip bomb stops here.
    const size = this.entries.get(name)?.uncompressedSize ?? 0;
    if (size > MAX_JSON_BYTES) {
      throw new SlackImportError(
        `${name} is ${Math.round(size / 2 ** 20)} MB: more than a Slack export's file ever holds`,
      );
    }
    const text = (await this.readBuffer(name)).toString("utf8");
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new SlackImportError(`${name} is not valid JSON (${(err as Error).message})`);
    }
  }

  /**
   * Writes an entry's bytes to `target`, at most `maxBytes` of them: counted as they are
   * inflated, not taken from the declared size. Past the limit the partial file is removed
   * and EntryTooLarge thrown.
   */
  async copyTo(name: string, target: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<void> {
    if ((this.entries.get(name)?.uncompressedSize ?? 0) > maxBytes)
      throw new EntryTooLarge(`${name} is larger than ${maxBytes} bytes`);
    let written = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        written += chunk.length;
        if (written > maxBytes) done(new EntryTooLarge(`${name} is larger than ${maxBytes} bytes`));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(await this.stream(name), cap, createWriteStream(target, { flags: "wx", mode: 0o600 }));
    } catch (err) {
      if (err instanceof EntryTooLarge) {
        rmSync(target, { force: true });
        throw err;
      }
      if (err instanceof SlackImportError) throw err;
      throw new SlackImportError(`${name} in ${this.path} is damaged (${(err as Error).message})`);
    }
  }

  close(): void {
    this.zip.close();
  }
}

import { createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Writable } from "node:stream";
import { PRIVATE_FILE_MODE } from "../db/private-files.js";

/**
 * The temporary files of one multipart request, each created private (0600, whatever the
 * umask) and new (never an existing file opened). Once the request is refused no file is
 * created any more: the parser may still hand over parts it had read ahead (hundreds from
 * one buffered chunk of tiny parts), and each gets a sink that writes nowhere. Removal
 * waits for each file's stream to close, so a write or an open still under way cannot
 * bring a file back after it was removed.
 */
export class UploadTempFiles {
  private readonly streams = new Map<string, WriteStream>();
  private refused = false;

  /** The stream a part's bytes are written to (formidable's fileWriteStreamHandler). */
  create(path: string): Writable {
    if (this.refused) return discardingSink();
    const stream = createWriteStream(path, { flags: "wx", mode: PRIVATE_FILE_MODE });
    this.streams.set(path, stream);
    return stream;
  }

  /** From now on no file is created (the request is being refused). */
  refuse(): void {
    this.refused = true;
  }

  /** Refuses further files and removes every one created so far. */
  async removeAll(): Promise<void> {
    this.refuse();
    await Promise.all(
      [...this.streams].map(async ([path, stream]) => {
        if (!stream.closed) {
          const closed = new Promise<void>((resolve) => stream.once("close", () => resolve()));
          stream.destroy();
          await closed;
        }
        await rm(path, { force: true });
      }),
    );
    this.streams.clear();
  }
}

const discardingSink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

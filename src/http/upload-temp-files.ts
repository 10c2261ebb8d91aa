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

  constructor() {
    live.add(this);
  }

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

  /**
   * Refuses further files and removes every one created so far (those a handler moved
   * into the store are gone already): when the request is refused or answered.
   */
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
    live.delete(this);
  }
}

/** The requests' files not removed yet (this process's). */
const live = new Set<UploadTempFiles>();

/**
 * A stopping server: removes the files of the requests it abandoned at the deadline (a
 * handler waiting for image work never reaches its own removal before the process exits).
 */
export async function removeAbandonedUploads(): Promise<void> {
  await Promise.all([...live].map((files) => files.removeAll()));
}

const discardingSink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ImportRefused } from "./zulip/refusal.js";

/** The first bytes of a gzip stream. */
const GZIP_MAGIC = [0x1f, 0x8b];

function isGzip(path: string): boolean {
  const head = Buffer.alloc(2);
  const fd = openSync(path, "r");
  try {
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    closeSync(fd);
  }
}

/** An unpacked archive, in a private temporary directory removed by `dispose`. */
export interface Unpacked {
  dir: string;
  dispose(): void;
}

/** The entry a node-tar warning concerns, by the name the archive gives it (node-tar may have changed the entry's). */
function entryName(data: Record<string, unknown>): string | undefined {
  if (typeof data.path === "string") return data.path;
  const entry = data.entry as { path?: unknown } | undefined;
  return typeof entry?.path === "string" ? entry.path : undefined;
}

/**
 * Unpacks a .tar.gz as a stream (node-tar: memory stays bounded whatever its size) into a
 * private temporary directory. Only files and directories are written, never outside it.
 * An archive node-tar warns of (an absolute or `..` entry name, a bad header) is refused
 * once the unpacking has finished: refusing at the first warning would leave node-tar
 * writing the later entries while the directory is being removed.
 */
export async function unpackTarGz(path: string): Promise<Unpacked> {
  if (!isGzip(path))
    throw new ImportRefused(`${path} is not a gzip file: give a .tar.gz export or its unpacked directory`);
  const dir = mkdtempSync(join(tmpdir(), "chatd-import-"));
  // Retries: a damaged gzip stops node-tar with file writes still closing.
  const dispose = () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  // The first warning (an object: TypeScript does not see the callback assign a variable).
  const warned: { problem?: string } = {};
  try {
    const { x } = await import("tar");
    await x({
      file: path,
      cwd: dir,
      strict: false,
      onwarn: (_code, message, data) => {
        const entry = entryName(data);
        warned.problem ??= `${entry === undefined ? "it" : `its entry ${entry}`} cannot be unpacked safely (${message})`;
      },
      // Small reads keep the unpacking's memory small (node-tar reads 16 MB at a time by default).
      maxReadSize: 1024 * 1024,
      filter: (_entry, stat) => "type" in stat && (stat.type === "File" || stat.type === "Directory"),
    });
  } catch (err) {
    dispose();
    throw new ImportRefused(`${path} is damaged: ${(err as Error).message}`);
  }
  if (warned.problem !== undefined) {
    dispose();
    throw new ImportRefused(`${path} is refused: ${warned.problem}`);
  }
  return { dir, dispose };
}

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emailHost, type Config } from "../../../config.js";
import { importZulipExport, type ImportProgress, type ImportSummary } from "../zulip/import-realm.js";
import { convertSlackExport } from "./convert.js";
import { TOTAL_UPLOAD_BYTES } from "./files.js";

/**
 * `chatd import slack`: the zip converted into Zulip's export format in a private temporary
 * directory (as Zulip converts before import_realm), imported by the Zulip importer, and
 * the temporary directory removed whatever happens.
 */
export async function importSlackExport(opts: {
  zipPath: string;
  config: Config;
  onProgress?: (p: ImportProgress) => void;
}): Promise<ImportSummary> {
  // mkdtemp makes it 0700: the converted export holds every message.
  const dir = mkdtempSync(join(tmpdir(), "chatd-slack-import-"));
  try {
    await convertSlackExport({
      zipPath: opts.zipPath,
      outDir: dir,
      domain: emailHost(opts.config),
      onProgress: opts.onProgress,
      // A file the server would refuse as an upload stays a link, as does one past the total.
      uploadLimits: {
        perFile: opts.config.max_file_upload_size_mib * 2 ** 20,
        total: TOTAL_UPLOAD_BYTES,
        onSkipped: (message) => process.stderr.write(`warning: ${message}\n`),
      },
    });
    return await importZulipExport({
      dir,
      dataDir: opts.config.data_dir,
      config: opts.config,
      onProgress: opts.onProgress,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

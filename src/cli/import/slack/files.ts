import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { newPathId } from "../../../lib/uploads/names.js";
import { type Json, objList, optNumber, optObj, optStr } from "./slack-json.js";
import type { Row } from "./realm-tables.js";
import { EntryTooLarge, type SlackZip } from "./slack-zip.js";

/** Where slack-advanced-exporter and slackdump put a file's bytes in the zip. */
export const uploadEntryName = (fileId: string, fileName: string) => `__uploads/${fileId}/${fileName}`;

export interface MessageFiles {
  /** Markdown links, one a line. */
  content: string;
  hasAttachment: boolean;
  hasImage: boolean;
  hasLink: boolean;
}

/** How many bytes of files an import copies: per file (the server's upload limit) and in all. */
export interface UploadLimits {
  perFile: number;
  total: number;
  /** Told of each file left out for its size (the CLI prints it on stderr). */
  onSkipped: (message: string) => void;
}

/** In all, files beyond this are left as links: a zip's declared sizes cannot be trusted. */
export const TOTAL_UPLOAD_BYTES = 64 * 2 ** 30;

/** Escapes what would end a Markdown link's text early. */
const linkText = (text: string) => text.replace(/([\\[\]])/g, "\\$1");

/**
 * A message's files, as Zulip's process_message_files: a file whose bytes are in the zip
 * becomes an upload (its bytes under uploads/<path_id>, a records.json entry, an attachment
 * row for the message) linked as [title](/user_uploads/<path_id>); any other file stays a link
 * to where Slack kept it. Deleted files (tombstones) and ones hidden by the free plan's
 * limit or access are skipped, as Zulip does.
 */
export class FileConverter {
  readonly attachments: Row[] = [];
  readonly uploadRecords: Row[] = [];
  private copiedBytes = 0;

  constructor(
    private readonly zip: SlackZip,
    private readonly outDir: string,
    private readonly realmId: number,
    private readonly limits: UploadLimits = {
      perFile: Number.MAX_SAFE_INTEGER,
      total: TOTAL_UPLOAD_BYTES,
      onSkipped: () => undefined,
    },
  ) {}

  /** Copies a file's bytes within the limits; false (and said) when it is too large. */
  private async copyWithin(entry: string, target: string): Promise<boolean> {
    mkdirSync(dirname(target), { recursive: true });
    const room = Math.min(this.limits.perFile, this.limits.total - this.copiedBytes);
    try {
      await this.zip.copyTo(entry, target, room);
    } catch (err) {
      if (!(err instanceof EntryTooLarge)) throw err;
      const why = room < this.limits.perFile ? "the import's total for files" : "the upload size limit";
      this.limits.onSkipped(
        `${entry} is not imported (it passes ${why}): the message keeps Slack's link, if any`,
      );
      return false;
    }
    this.copiedBytes += this.zip.entries.get(entry)!.uncompressedSize;
    return true;
  }

  async convert(
    message: Json,
    where: string,
    messageId: number,
    ownerId: number,
    ownerEmail: string,
    dateSent: number,
  ): Promise<MessageFiles> {
    const files =
      message.subtype === "file_share" && optObj(message, "file", where)
        ? [message.file as Json]
        : objList(message, "files", where);
    const result: MessageFiles = { content: "", hasAttachment: false, hasImage: false, hasLink: false };
    const links: string[] = [];
    for (const [i, file] of files.entries()) {
      const at = `${where}.files[${i}]`;
      const mode = optStr(file, "mode", at);
      const access = optStr(file, "file_access", at);
      if (mode === "tombstone" || mode === "hidden_by_limit") continue;
      if (access === "access_denied" || access === "file_not_found") continue;
      const id = optStr(file, "id", at);
      const name = optStr(file, "name", at) ?? optStr(file, "title", at) ?? "file";
      const title = optStr(file, "title", at) || name;
      const entry = id === undefined ? undefined : uploadEntryName(id, name);
      const pathId = newPathId(this.realmId, name);
      const target = join(this.outDir, "uploads", pathId);
      if (entry !== undefined && this.zip.has(entry) && (await this.copyWithin(entry, target))) {
        const size = this.zip.entries.get(entry)!.uncompressedSize;
        const mimetype = optStr(file, "mimetype", at) ?? null;
        const created = optNumber(file, "created", at) ?? dateSent;
        this.uploadRecords.push({
          path: pathId,
          s3_path: pathId,
          realm_id: this.realmId,
          user_profile_id: ownerId,
          user_profile_email: ownerEmail,
          content_type: mimetype,
          last_modified: optNumber(file, "timestamp", at) ?? created,
          size,
        });
        this.attachments.push({
          id: this.attachments.length + 1,
          realm: this.realmId,
          owner: ownerId,
          file_name: name,
          path_id: pathId,
          size,
          create_time: created,
          is_realm_public: true,
          is_web_public: false,
          content_type: mimetype,
          messages: [messageId],
        });
        links.push(`[${linkText(title)}](/user_uploads/${pathId})`);
        result.hasAttachment = true;
        result.hasLink = true;
        if (mimetype?.includes("image")) result.hasImage = true;
      } else {
        const url = optStr(file, "url_private", at) ?? optStr(file, "permalink", at);
        if (url === undefined) continue;
        links.push(`[${linkText(title)}](${url})`);
        result.hasLink = true;
      }
    }
    result.content = links.join("\n");
    return result;
  }
}

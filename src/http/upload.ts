import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { errors as FormidableErrorCodes } from "formidable";
import { JsonableError, badRequest } from "../errors.js";
import type { UploadLimits, UploadedFile } from "../lib/uploads/uploaded-file.js";
import { drainRequest, noteBodyBytes } from "./reclaim.js";
import { UploadTempFiles } from "./upload-temp-files.js";

export { removeAbandonedUploads } from "./upload-temp-files.js";

export type { UploadLimits, UploadedFile };

/**
 * Multipart requests that carry a file (POST /user_uploads, avatars), parsed as they
 * stream in: the file goes to a private temporary file in the upload store's temp
 * directory, hashed on the way, and the size limit is enforced per chunk, so a request
 * far over the limit is refused without ever being held in memory or on disk whole.
 * The default body parser (http/body.ts) never sees these requests.
 */

export interface ReceivedUpload {
  readonly fields: Map<string, string>;
  readonly files: UploadedFile[];
  /** Removes the temporary files the handler did not move into the store. */
  discard(): Promise<void>;
}

const MAX_FIELDS_BYTES = 1024 * 1024;
/** More than this many files in one request is refused while parsing. */
const MAX_FILES = 10;

export async function receiveUpload(
  req: IncomingMessage,
  tempDir: string,
  limits: UploadLimits,
): Promise<ReceivedUpload> {
  // Loaded on the first upload: an idle server does not hold the multipart parser.
  const { default: formidable, errors: formidableErrors } = await import("formidable");
  const temp = new UploadTempFiles();
  const form = formidable({
    uploadDir: tempDir,
    maxFiles: MAX_FILES,
    maxFields: 1000,
    maxFieldsSize: MAX_FIELDS_BYTES,
    maxFileSize: limits.maxFileBytes,
    maxTotalFileSize: limits.maxFileBytes,
    allowEmptyFiles: true,
    minFileSize: 0,
    hashAlgorithm: "sha256",
    filename: () => `upload-${randomBytes(12).toString("hex")}`,
    // formidable's own files are created 0644 and outlive a refusal (see http/upload-temp-files.ts).
    fileWriteStreamHandler: (file) => temp.create((file as unknown as { filepath: string }).filepath),
  });
  // Synchronous with the refusal: a part the parser hands over afterwards gets no file.
  let refused = false;
  form.on("error", () => {
    refused = true;
    temp.refuse();
  });
  // A part with a file name is a file, as Django has it, even without a Content-Type
  // (python-zulip-api's upload_file sends none); formidable would read it as a text field.
  // Parts read past a refusal are dropped unread.
  form.onPart = (part) => {
    if (refused) return;
    if (part.originalFilename && !part.mimetype) part.mimetype = "application/octet-stream";
    form._handlePart(part);
  };
  let received = 0;
  form.on("progress", (bytesReceived) => {
    noteBodyBytes(bytesReceived - received);
    received = bytesReceived;
  });
  try {
    const [fields, files] = await form.parse(req);
    const received: UploadedFile[] = Object.values(files)
      .flatMap((list) => list ?? [])
      .map((file) => ({
        path: file.filepath,
        size: file.size,
        sha256: String(file.hash),
        originalName: file.originalFilename ?? "",
      }));
    const flat = new Map<string, string>();
    for (const [key, values] of Object.entries(fields)) {
      const last = values?.[values.length - 1];
      if (last !== undefined) flat.set(key, last);
    }
    return { fields: flat, files: received, discard: () => temp.removeAll() };
  } catch (err) {
    drainRequest(req);
    // Before answering: the client may not see its refusal while a file of it remains.
    await temp.removeAll();
    throw uploadError(err as Error & { code?: number; httpCode?: number }, limits, formidableErrors);
  }
}

function uploadError(
  err: Error & { code?: number; httpCode?: number },
  limits: UploadLimits,
  formidableErrors: typeof FormidableErrorCodes,
): JsonableError {
  switch (err.code ?? -1) {
    case formidableErrors.biggerThanMaxFileSize:
    case formidableErrors.biggerThanTotalMaxFileSize:
      return limits.tooLarge();
    case formidableErrors.maxFilesExceeded:
      return badRequest("You may only upload one file at a time");
    case formidableErrors.maxFieldsSizeExceeded:
    case formidableErrors.maxFieldsExceeded:
      return new JsonableError("Request body too large", "PAYLOAD_TOO_LARGE", 413);
    case formidableErrors.aborted:
      return badRequest("Request aborted");
    default:
      return badRequest("Malformed request body");
  }
}

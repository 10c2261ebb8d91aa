import { checkDeleteAttachment, checkUploadFile, uploadLimits } from "../actions/uploads.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { serverSecret } from "../lib/attachments.js";
import { temporaryFileUrl } from "../lib/uploads/tokens.js";
import { p, pathInt } from "../params.js";
import { accessFile, attachmentsOf } from "../queries/attachments.js";

/** POST /user_uploads: one file, multipart, streamed to disk (see http/upload.ts). */
export const uploadFile = defineEndpoint({
  method: "POST",
  path: "/user_uploads",
  auth: "user",
  params: {},
  upload: (app) => uploadLimits(app),
  async handler({ app, user, files }) {
    const { url, filename } = await checkUploadFile(app, user, files);
    // `uri` is Zulip's deprecated alias of `url`; the mobile app still reads it.
    return { uri: url, url, filename };
  },
});

/**
 * GET /user_uploads/{realm_id_str}/{filename}: a URL for the file that works without
 * credentials for 60 seconds (for opening it in a browser).
 */
export const getFileTemporaryUrl = defineEndpoint({
  method: "GET",
  path: "/user_uploads/:realm_id_str/*filename",
  auth: "user",
  params: { realm_id_str: p.path(p.str()), filename: p.path(p.str()) },
  async handler({ app, user, params }) {
    const pathId = `${params.realm_id_str}/${params.filename}`;
    const access = await accessFile(app, { user }, pathId);
    if (access.kind === "missing") throw badRequest("This file does not exist or has been deleted.");
    if (access.kind === "forbidden") throw badRequest("You are not authorized to view this file.");
    const key = await serverSecret(app.knex, "upload_token_key");
    return { url: temporaryFileUrl(key, pathId, Math.floor(app.clock.nowMs() / 1000)) };
  },
});

export const getAttachments = defineEndpoint({
  method: "GET",
  path: "/attachments",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    return attachmentsOf(app, user);
  },
});

export const removeAttachment = defineEndpoint({
  method: "DELETE",
  path: "/attachments/:attachment_id",
  auth: "user",
  params: { attachment_id: pathInt() },
  async handler({ app, user, params }) {
    await checkDeleteAttachment(app, user, params.attachment_id);
    return {};
  },
});

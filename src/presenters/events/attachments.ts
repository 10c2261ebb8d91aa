import type { AttachmentEvent } from "../../wire/events.js";
import type { WireAttachment } from "../../wire/records.js";

/** attachment events (Zulip's notify_attachment_update), to the uploader only. */
export const attachmentEvents = {
  add(attachment: WireAttachment, uploadSpaceUsed: number): AttachmentEvent {
    return { type: "attachment", op: "add", attachment, upload_space_used: uploadSpaceUsed };
  },
  update(attachment: WireAttachment, uploadSpaceUsed: number): AttachmentEvent {
    return { type: "attachment", op: "update", attachment, upload_space_used: uploadSpaceUsed };
  },
  remove(attachmentId: number, uploadSpaceUsed: number): AttachmentEvent {
    return {
      type: "attachment",
      op: "remove",
      attachment: { id: attachmentId },
      upload_space_used: uploadSpaceUsed,
    };
  },
};

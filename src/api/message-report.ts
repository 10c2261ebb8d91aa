import {
  checkReportMessage,
  MAX_REPORT_DESCRIPTION_LENGTH,
  REPORT_TYPES,
} from "../actions/message-report.js";
import { defineEndpoint } from "../http/endpoint.js";
import { p, pathInt } from "../params.js";

/** POST /messages/{message_id}/report: report a message to the moderation request channel. */
export const reportMessage = defineEndpoint({
  method: "POST",
  path: "/messages/:message_id/report",
  auth: "user",
  params: {
    message_id: pathInt(),
    report_type: p.oneOf(REPORT_TYPES),
    description: p.str({ maxLength: MAX_REPORT_DESCRIPTION_LENGTH }).default(""),
  },
  async handler({ app, realm, user, params }) {
    await checkReportMessage(app, realm, user, params.message_id, params.report_type, params.description);
    return {};
  },
});

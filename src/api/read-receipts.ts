import { bool } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { accessMessage } from "../lib/message-access.js";
import { loadWorld } from "../cache/world.js";
import { pathInt } from "../params.js";
import { readReceiptUserIds } from "../queries/read-receipts.js";

/** GET /messages/{message_id}/read_receipts: who has read a message the user may read. */
export const getReadReceipts = defineEndpoint({
  method: "GET",
  path: "/messages/:message_id/read_receipts",
  auth: "user",
  params: { message_id: pathInt() },
  async handler({ app, realm, user, params }) {
    const world = await loadWorld(app, app.knex, realm);
    const message = await accessMessage({ knex: app.knex, world, user }, params.message_id);
    if (!bool(realm.realm.enable_read_receipts)) {
      throw badRequest("Read receipts are disabled in this organization.");
    }
    return { user_ids: await readReceiptUserIds(app.knex, realm, user, message) };
  },
});

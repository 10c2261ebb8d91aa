import { expect } from "chai";
import type { UserRow } from "../../src/db/rows.js";
import { presentUser } from "../../src/presenters/users.js";

describe("presenters: the User record", function () {
  it("shows is_deleted only when true", function () {
    const row = {
      id: 1,
      email: "a@zulip.test",
      delivery_email: "a@zulip.test",
      full_name: "A",
      role: 400,
      is_bot: 0,
      bot_type: null,
      bot_owner_id: null,
      is_active: 0,
      is_deleted: 0,
      is_imported_stub: 0,
      date_joined: 0,
      timezone: "",
      avatar_source: "G",
      avatar_version: 1,
      email_address_visibility: 1,
    } as unknown as UserRow;
    expect(presentUser(null, row, { clientGravatar: false })).not.to.have.property("is_deleted");
    expect(presentUser(null, { ...row, is_deleted: 1 }, { clientGravatar: false })).to.include({
      is_deleted: true,
      is_active: false,
    });
  });
});

import { expect } from "chai";
import { expectError, expectSuccess, type Client, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestUser } from "../helpers/factories.js";

const LANGUAGES = { vim: { text: "Vim", order: "1" }, emacs: { text: "Emacs", order: "2" } };

describe("custom profile fields", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    const u = (name: string) => realm.users[name]!;
    const admin = u("iago").client;
    const create = async (params: Params) =>
      expectSuccess(await admin.post("/realm/profile_fields", params)).id as number;
    const fields = async (client: Client = u("hamlet").client) =>
      expectSuccess(await client.get("/realm/profile_fields")).custom_fields as Array<
        Record<string, unknown>
      >;
    const profile = async (user: TestUser) =>
      (
        expectSuccess(
          await u("hamlet").client.get(`/users/${user.id}`, { include_custom_profile_fields: true }),
        ).user as { profile_data: Record<string, unknown> }
      ).profile_data;
    return { realm, u, admin, create, fields, profile };
  };

  describe("definitions", function () {
    it("creates fields of every type, in Zulip's record shape, ordered by creation", async function () {
      const { create, fields } = await fresh();
      const phone = await create({ field_type: 1, name: " Phone ", hint: "Work phone" });
      const bio = await create({ field_type: 2, name: "Biography", required: true });
      const editor = await create({ field_type: 3, name: "Editor", field_data: LANGUAGES });
      const birthday = await create({ field_type: 4, name: "Birthday", display_in_profile_summary: true });
      const site = await create({ field_type: 5, name: "Website", editable_by_user: false });
      const mentor = await create({ field_type: 6, name: "Mentor" });
      const github = await create({ field_type: 7, field_data: { subtype: "github" } });
      const pronouns = await create({ field_type: 8, name: "Pronouns", use_for_user_matching: false });
      const listed = await fields();
      expect(listed.map((f) => f.id)).to.deep.equal([
        phone,
        bio,
        editor,
        birthday,
        site,
        mentor,
        github,
        pronouns,
      ]);
      expect(listed[0]).to.deep.equal({
        id: phone,
        name: "Phone",
        type: 1,
        hint: "Work phone",
        field_data: "",
        order: phone,
        required: false,
        editable_by_user: true,
      });
      expect(listed[1]).to.include({ required: true });
      expect(JSON.parse(listed[2]!.field_data as string)).to.deep.equal(LANGUAGES);
      expect(listed[3]).to.include({ display_in_profile_summary: true });
      expect(listed[4]).to.include({ editable_by_user: false });
      // The GitHub default: Zulip's label, and only the subtype as data.
      expect(listed[6]).to.include({ name: "GitHub username", hint: "", field_data: '{"subtype":"github"}' });
      const matching = await create({
        field_type: 7,
        name: "Slack",
        field_data: {
          subtype: "custom",
          url_pattern: "https://slack.example.com/%(username)s",
        },
        use_for_user_matching: true,
      });
      expect((await fields()).find((f) => f.id === matching)).to.include({ use_for_user_matching: true });
    });

    it("is refused to non-administrators, creating nothing", async function () {
      const { u, fields } = await fresh();
      for (const caller of ["hamlet", "prospero", "polonius"]) {
        expectError(
          await u(caller).client.post("/realm/profile_fields", { field_type: 1, name: "Phone" }),
          400,
          "Must be an organization administrator",
          "UNAUTHORIZED_PRINCIPAL",
        );
      }
      expect(await fields()).to.deep.equal([]);
    });

    it("validates labels, hints and types", async function () {
      const { admin, create, fields } = await fresh();
      const post = (params: Params) => admin.post("/realm/profile_fields", params);
      expectError(await post({ field_type: 1, name: "   " }), 400, "Label cannot be blank.");
      expectError(await post({ field_type: 1 }), 400, "Label cannot be blank.");
      expectError(
        await post({ field_type: 1, name: "x".repeat(41) }),
        400,
        "name is too long (limit: 40 characters)",
      );
      expectError(
        await post({ field_type: 1, name: "Phone", hint: "h".repeat(81) }),
        400,
        "hint is too long (limit: 80 characters)",
      );
      expectError(await post({ field_type: 9, name: "Phone" }), 400, "Invalid field type.");
      expectError(await post({ field_type: 0, name: "Phone" }), 400, "Invalid field type.");
      expectError(await post({ field_type: "text", name: "Phone" }), 400, "field_type is not an integer");
      expectError(
        await post({ name: "Phone" }),
        400,
        "Missing 'field_type' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      await create({ field_type: 1, name: "Phone" });
      expectError(
        await post({ field_type: 2, name: "Phone" }),
        400,
        "A field with that label already exists.",
      );
      expect(await fields()).to.have.lengthOf(1);
    });

    it("validates dropdown choices", async function () {
      const { admin, fields } = await fresh();
      const post = (field_data: unknown) =>
        admin.post("/realm/profile_fields", {
          field_type: 3,
          name: "Editor",
          field_data: field_data as Params,
        });
      expectError(await post({}), 400, "Field must have at least one choice.");
      expectError(await post({ " ": { text: "Vim", order: "1" } }), 400, "'value' cannot be blank.");
      expectError(await post({ vim: { order: "1" } }), 400, "text key is missing from field_data");
      expectError(await post({ vim: { text: " ", order: "1" } }), 400, 'field_data["text"] cannot be blank.');
      expectError(await post({ vim: { text: "Vim", order: 1 } }), 400, 'field_data["order"] is not a string');
      expectError(await post({ vim: { text: "Vim", order: "1", x: 1 } }), 400, "Unexpected arguments: x");
      expectError(await post({ vim: "Vim" }), 400, "field_data is not a dict");
      expectError(
        await post({ vim: { text: "Vim", order: "1" }, vi: { text: "Vim", order: "2" } }),
        400,
        "Field must not have duplicate choices.",
      );
      expectError(
        await admin.post("/realm/profile_fields", { field_type: 3, name: "Editor", field_data: "[1]" }),
        400,
        "field_data is not a dict",
      );
      expect(await fields()).to.deep.equal([]);
    });

    it("validates external accounts", async function () {
      const { admin, fields } = await fresh();
      const post = (field_data: Params) =>
        admin.post("/realm/profile_fields", { field_type: 7, name: "X", field_data });
      expectError(await post({}), 400, "subtype key is missing from field_data");
      expectError(await post({ subtype: "myspace" }), 400, "Invalid external account type");
      expectError(await post({ subtype: "custom" }), 400, "Custom external account must define URL pattern");
      expectError(
        await post({ subtype: "custom", url_pattern: "https://example.com/" }),
        400,
        "URL pattern must contain '%(username)s'.",
      );
      expectError(
        await post({ subtype: "custom", url_pattern: "example/%(username)s" }),
        400,
        'field_data["url_pattern"] is not a URL',
      );
      expectError(await post({ subtype: "github", extra: "1" }), 400, "Unexpected arguments: extra");
      expect(await fields()).to.deep.equal([]);
    });

    it("limits the profile summary to 2 fields and not the Users type; matching to short text and accounts", async function () {
      const { admin, create, fields } = await fresh();
      const post = (params: Params) => admin.post("/realm/profile_fields", params);
      expectError(
        await post({ field_type: 6, name: "Mentor", display_in_profile_summary: true }),
        400,
        "Field type not supported for display in profile summary.",
      );
      expectError(
        await post({ field_type: 2, name: "Bio", use_for_user_matching: true }),
        400,
        "Field type not supported for use for user matching.",
      );
      const a = await create({ field_type: 1, name: "A", display_in_profile_summary: true });
      await create({ field_type: 1, name: "B", display_in_profile_summary: true });
      expectError(
        await post({ field_type: 1, name: "C", display_in_profile_summary: true }),
        400,
        "Only 2 custom profile fields can be displayed in the profile summary.",
      );
      const c = await create({ field_type: 1, name: "C" });
      expectError(
        await admin.patch(`/realm/profile_fields/${c}`, { display_in_profile_summary: true }),
        400,
        "Only 2 custom profile fields can be displayed in the profile summary.",
      );
      // A field already shown may be saved as shown again.
      expectSuccess(await admin.patch(`/realm/profile_fields/${a}`, { display_in_profile_summary: true }));
      expect((await fields()).filter((f) => f.display_in_profile_summary)).to.have.lengthOf(2);
    });

    it("updates a field; refuses unknown fields, duplicate labels and changes to default accounts", async function () {
      const { admin, u, create, fields } = await fresh();
      const phone = await create({ field_type: 1, name: "Phone" });
      await create({ field_type: 1, name: "Fax" });
      const github = await create({ field_type: 7, field_data: { subtype: "github" } });
      expectSuccess(
        await admin.patch(`/realm/profile_fields/${phone}`, { name: "Mobile", hint: "Cell", required: true }),
      );
      expect((await fields()).find((f) => f.id === phone)).to.include({
        name: "Mobile",
        hint: "Cell",
        required: true,
      });
      expectError(
        await admin.patch("/realm/profile_fields/99999", { name: "X" }),
        400,
        "Field id 99999 not found.",
      );
      expectError(
        await admin.patch(`/realm/profile_fields/${phone}`, { name: "Fax" }),
        400,
        "A field with that label already exists.",
      );
      expectError(
        await admin.patch(`/realm/profile_fields/${phone}`, { name: " " }),
        400,
        "Label cannot be blank.",
      );
      expectError(
        await admin.patch(`/realm/profile_fields/${github}`, { name: "Code" }),
        400,
        "Default custom field cannot be updated.",
      );
      expectError(
        await admin.patch(`/realm/profile_fields/${github}`, { field_data: { subtype: "twitter" } }),
        400,
        "Default custom field cannot be updated.",
      );
      expectSuccess(
        await admin.patch(`/realm/profile_fields/${github}`, { display_in_profile_summary: true }),
      );
      expectError(
        await u("othello").client.patch(`/realm/profile_fields/${phone}`, { name: "Pager" }),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expect((await fields()).find((f) => f.id === phone)).to.include({ name: "Mobile" });
    });

    it("removing a dropdown choice removes the users' values that used it", async function () {
      const { admin, u, create, profile } = await fresh();
      const editor = await create({ field_type: 3, name: "Editor", field_data: LANGUAGES });
      expectSuccess(
        await u("hamlet").client.patch("/users/me/profile_data", { data: [{ id: editor, value: "vim" }] }),
      );
      expectSuccess(
        await u("othello").client.patch("/users/me/profile_data", { data: [{ id: editor, value: "emacs" }] }),
      );
      const { queue_id } = await register(u("cordelia").client, { event_types: ["realm_user"] });
      expectSuccess(
        await admin.patch(`/realm/profile_fields/${editor}`, { field_data: { emacs: LANGUAGES.emacs } }),
      );
      expect(await profile(u("hamlet"))).to.deep.equal({});
      expect(await profile(u("othello"))).to.deep.equal({ [editor]: { value: "emacs" } });
      const events = await pendingEvents(u("cordelia").client, queue_id);
      expect(events.map((e) => e.person as unknown)).to.deep.equal([
        { user_id: u("hamlet").id, custom_profile_field: { id: editor, value: null } },
      ]);
    });

    it("deletes a field and its values; administrators only", async function () {
      const { admin, u, create, fields, profile } = await fresh();
      const phone = await create({ field_type: 1, name: "Phone" });
      expectSuccess(
        await u("hamlet").client.patch("/users/me/profile_data", { data: [{ id: phone, value: "555" }] }),
      );
      expectError(
        await u("hamlet").client.delete(`/realm/profile_fields/${phone}`),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expect(await fields()).to.have.lengthOf(1);
      expectSuccess(await admin.delete(`/realm/profile_fields/${phone}`));
      expect(await fields()).to.deep.equal([]);
      expect(await profile(u("hamlet"))).to.deep.equal({});
      expectError(await admin.delete(`/realm/profile_fields/${phone}`), 400, `Field id ${phone} not found.`);
    });

    it("reorders fields: every field must be listed", async function () {
      const { admin, u, create, fields } = await fresh();
      const a = await create({ field_type: 1, name: "A" });
      const b = await create({ field_type: 1, name: "B" });
      const c = await create({ field_type: 1, name: "C" });
      expectError(
        await admin.patch("/realm/profile_fields", { order: [c, a] }),
        400,
        "Invalid order mapping.",
      );
      expectError(
        await u("hamlet").client.patch("/realm/profile_fields", { order: [c, b, a] }),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expect((await fields()).map((f) => f.id)).to.deep.equal([a, b, c]);
      expectSuccess(await admin.patch("/realm/profile_fields", { order: [c, a, b, 9999] }));
      const listed = await fields();
      expect(listed.map((f) => [f.id, f.order])).to.deep.equal([
        [c, 0],
        [a, 1],
        [b, 2],
      ]);
    });

    it("sends the whole list on every change; state plus events equals a fresh register", async function () {
      const { admin, u, create } = await fresh();
      const keep = await create({ field_type: 1, name: "Keep" });
      const { queue_id } = await register(u("polonius").client, { event_types: ["custom_profile_fields"] });
      const events = await verifyRegisterParity(u("hamlet").client, {}, async () => {
        const phone = await create({ field_type: 1, name: "Phone" });
        expectSuccess(
          await u("hamlet").client.patch("/users/me/profile_data", { data: [{ id: phone, value: "1" }] }),
        );
        expectSuccess(await admin.patch(`/realm/profile_fields/${phone}`, { name: "Mobile" }));
        expectSuccess(await admin.patch("/realm/profile_fields", { order: [phone, keep] }));
        expectSuccess(await admin.delete(`/realm/profile_fields/${phone}`));
      });
      expect(events.filter((e) => e.type === "custom_profile_fields")).to.have.lengthOf(4);
      const guestEvents = await pendingEvents(u("polonius").client, queue_id);
      expect(guestEvents).to.have.lengthOf(4);
      expect(guestEvents[0]!.fields.map((f: { name: string }) => f.name)).to.deep.equal(["Keep", "Phone"]);
      expect(guestEvents[3]!.fields.map((f: { name: string }) => f.name)).to.deep.equal(["Keep"]);
      const state = await register(u("hamlet").client, { fetch_event_types: ["custom_profile_fields"] });
      expect(state.custom_profile_field_types).to.deep.include({
        SHORT_TEXT: { id: 1, name: "Text (short)" },
        USER: { id: 6, name: "Users" },
        PRONOUNS: { id: 8, name: "Pronouns" },
      });
      expect(Object.keys(state.custom_profile_field_types)).to.have.lengthOf(8);
    });
  });

  describe("values", function () {
    it("validates each type's value, naming the field", async function () {
      const { realm, u, create } = await fresh();
      const set = (id: number, value: unknown) =>
        u("hamlet").client.patch("/users/me/profile_data", { data: [{ id, value }] });
      const phone = await create({ field_type: 1, name: "Phone" });
      const bio = await create({ field_type: 2, name: "Biography" });
      const editor = await create({ field_type: 3, name: "Editor", field_data: LANGUAGES });
      const birthday = await create({ field_type: 4, name: "Birthday" });
      const site = await create({ field_type: 5, name: "Website" });
      const mentor = await create({ field_type: 6, name: "Mentor" });
      const github = await create({ field_type: 7, field_data: { subtype: "github" } });
      const pronouns = await create({ field_type: 8, name: "Pronouns" });
      expectError(await set(phone, "1".repeat(51)), 400, "Phone is too long (limit: 50 characters)");
      expectError(await set(phone, 5), 400, "Phone is not a string");
      expectError(await set(bio, "b".repeat(501)), 400, "Biography is too long (limit: 500 characters)");
      expectError(await set(editor, "nano"), 400, "'nano' is not a valid choice for 'Editor'.");
      expectError(await set(editor, "Vim"), 400, "'Vim' is not a valid choice for 'Editor'.");
      expectError(await set(birthday, "2024-02-30"), 400, "Birthday is not a date");
      expectError(await set(birthday, "2024-1-05"), 400, "Birthday is not a date");
      expectError(await set(site, "ftp://example.com"), 400, "Website is not a URL");
      expectError(await set(site, "not a url"), 400, "Website is not a URL");
      expectError(await set(mentor, "othello"), 400, "User IDs is not a list");
      expectError(await set(mentor, ["x"]), 400, "User IDs[0] is not an integer");
      expectError(await set(mentor, [99998, u("othello").id, 99999]), 400, "Invalid user IDs: 99998, 99999");
      const bot = await server.factory.user(realm.id, "fool-bot", 400, {
        isBot: true,
        botOwnerId: u("hamlet").id,
      });
      expectError(await set(mentor, [bot.id]), 400, `User with ID ${bot.id} is a bot`);
      expectSuccess(await u("iago").client.delete(`/users/${u("cordelia").id}`));
      expectError(
        await set(mentor, [u("cordelia").id]),
        400,
        `User with ID ${u("cordelia").id} is deactivated`,
      );
      expectError(
        await set(github, "g".repeat(51)),
        400,
        "GitHub username is too long (limit: 50 characters)",
      );
      expectError(await set(99999, "x"), 400, "Field id 99999 not found.");
      expectError(
        await u("hamlet").client.patch("/users/me/profile_data", { data: [{ id: phone }] }),
        400,
        "value key is missing from data[0]",
      );
      expectSuccess(
        await u("hamlet").client.patch("/users/me/profile_data", {
          data: [
            { id: phone, value: "**555**" },
            { id: bio, value: "To be" },
            { id: editor, value: "vim" },
            { id: birthday, value: "1600-02-29" },
            { id: site, value: "https://elsinore.example/hamlet" },
            { id: mentor, value: [u("othello").id, u("iago").id] },
            { id: github, value: "hamlet" },
            { id: pronouns, value: "he/him" },
          ],
        }),
      );
      const me = expectSuccess(
        await u("othello").client.get(`/users/${u("hamlet").id}`, {
          include_custom_profile_fields: true,
        }),
      ).user;
      expect(me.profile_data).to.deep.equal({
        [phone]: { value: "**555**", rendered_value: "<p><strong>555</strong></p>" },
        [bio]: { value: "To be", rendered_value: "<p>To be</p>" },
        [editor]: { value: "vim" },
        [birthday]: { value: "1600-02-29" },
        [site]: { value: "https://elsinore.example/hamlet" },
        [mentor]: { value: JSON.stringify([u("othello").id, u("iago").id]) },
        [github]: { value: "hamlet" },
        [pronouns]: { value: "he/him" },
      });
      // Without the flag, no profile_data; the list shows it for humans only.
      const plain = expectSuccess(await u("othello").client.get(`/users/${u("hamlet").id}`)).user;
      expect(plain).not.to.have.property("profile_data");
      const all = expectSuccess(
        await u("othello").client.get("/users", { include_custom_profile_fields: true }),
      );
      const byId = new Map(all.members.map((m: { user_id: number }) => [m.user_id, m]));
      expect(byId.get(u("hamlet").id)).to.have.property("profile_data");
      expect(byId.get(u("othello").id)).to.deep.include({ profile_data: {} });
      expect(byId.get(bot.id)).not.to.have.property("profile_data");
    });

    it("enforces editable_by_user for users' own values; administrators may always edit", async function () {
      const { u, create, profile } = await fresh();
      const badge = await create({ field_type: 1, name: "Badge", editable_by_user: false });
      expectError(
        await u("hamlet").client.patch("/users/me/profile_data", { data: [{ id: badge, value: "007" }] }),
        400,
        "You are not allowed to change this field. Contact an administrator to update it.",
      );
      expectError(
        await u("hamlet").client.delete("/users/me/profile_data", { data: [badge] }),
        400,
        "You are not allowed to change this field. Contact an administrator to update it.",
      );
      expect(await profile(u("hamlet"))).to.deep.equal({});
      expectSuccess(
        await u("iago").client.patch(`/users/${u("hamlet").id}`, {
          profile_data: [{ id: badge, value: "007" }],
        }),
      );
      expectSuccess(
        await u("iago").client.patch("/users/me/profile_data", { data: [{ id: badge, value: "1" }] }),
      );
      expect(await profile(u("hamlet"))).to.deep.equal({
        [badge]: { value: "007", rendered_value: "<p>007</p>" },
      });
      // An administrator's empty value removes it.
      expectSuccess(
        await u("iago").client.patch(`/users/${u("hamlet").id}`, {
          profile_data: [{ id: badge, value: null }],
        }),
      );
      expect(await profile(u("hamlet"))).to.deep.equal({});
    });

    it("removes own values with DELETE /users/me/profile_data; bots have no profile", async function () {
      const { realm, u, create, profile } = await fresh();
      const phone = await create({ field_type: 1, name: "Phone" });
      expectSuccess(
        await u("hamlet").client.patch("/users/me/profile_data", { data: [{ id: phone, value: "5" }] }),
      );
      expectSuccess(await u("hamlet").client.delete("/users/me/profile_data", { data: [phone] }));
      expect(await profile(u("hamlet"))).to.deep.equal({});
      // Removing what is not set is fine; an unknown field is not.
      expectSuccess(await u("hamlet").client.delete("/users/me/profile_data", { data: [phone] }));
      expectError(
        await u("hamlet").client.delete("/users/me/profile_data", { data: [4242] }),
        400,
        "Field id 4242 not found.",
      );
      const bot = await server.factory.user(realm.id, "fool-bot", 400, {
        isBot: true,
        botOwnerId: u("hamlet").id,
      });
      expectError(
        await bot.client.patch("/users/me/profile_data", { data: [{ id: phone, value: "1" }] }),
        400,
        "This endpoint does not accept bot requests.",
      );
    });

    it("sends one realm_user update per changed value; state plus events equals a fresh register", async function () {
      const { u, create } = await fresh();
      const phone = await create({ field_type: 1, name: "Phone" });
      const editor = await create({ field_type: 3, name: "Editor", field_data: LANGUAGES });
      const events = await verifyRegisterParity(u("othello").client, {}, async () => {
        const hamlet = u("hamlet").client;
        expectSuccess(
          await hamlet.patch("/users/me/profile_data", {
            data: [
              { id: phone, value: "_555_" },
              { id: editor, value: "vim" },
            ],
          }),
        );
        // Unchanged: no event.
        expectSuccess(
          await hamlet.patch("/users/me/profile_data", { data: [{ id: phone, value: "_555_" }] }),
        );
        expectSuccess(await hamlet.delete("/users/me/profile_data", { data: [editor] }));
        expectSuccess(
          await u("iago").client.patch(`/users/${u("cordelia").id}`, {
            profile_data: [
              { id: phone, value: "7" },
              { id: editor, value: "emacs" },
            ],
          }),
        );
        expectSuccess(
          await u("iago").client.patch(`/users/${u("cordelia").id}`, {
            profile_data: [{ id: phone, value: "" }],
          }),
        );
      });
      expect(events.map((e) => e.person.custom_profile_field as unknown)).to.deep.equal([
        { id: phone, value: "_555_", rendered_value: "<p><em>555</em></p>" },
        { id: editor, value: "vim" },
        { id: editor, value: null },
        { id: phone, value: "7", rendered_value: "<p>7</p>" },
        { id: editor, value: "emacs" },
        { id: phone, value: null },
      ]);
    });
  });
});

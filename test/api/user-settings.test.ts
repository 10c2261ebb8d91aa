import { expect } from "chai";
import { confirmEmailChange } from "../helpers/email-change.js";
import { ROLE } from "../../src/world/roles.js";
import { anonymousClient, Client, expectError, expectSuccess } from "../helpers/client.js";
import { setRealmFields } from "../helpers/channels.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

describe("PATCH /settings: a user's own password, name and email", function () {
  let server: TestServer;
  let realm: TestRealm;
  let serial = 0;
  const u = (name: string) => realm.users[name]!;
  /** A fresh user, so each test starts from known settings. */
  const fresh = (role: (typeof ROLE)[keyof typeof ROLE] = ROLE.MEMBER) =>
    server.factory.user(realm.id, `person${++serial}`, role);
  const logsIn = async (email: string, password: string) =>
    (await anonymousClient(server.url).post("/fetch_api_key", { username: email, password })).status === 200;
  const row = (user: TestUser) => server.factory.row(realm.id, user.id);

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });
  afterEach(async function () {
    await setRealmFields(server, realm, { name_changes_disabled: false, email_changes_disabled: false });
  });

  describe("password", function () {
    it("changes with the right old password; the user's API keys stay valid", async function () {
      const user = await fresh();
      const events = await register(user.client, {});
      expectSuccess(
        await user.client.patch("/settings", { old_password: user.password, new_password: "a new secret" }),
      );
      expect(await logsIn(user.email, "a new secret")).to.equal(true);
      expect(await logsIn(user.email, user.password)).to.equal(false);
      expectSuccess(await user.client.get("/users/me"));
      // Zulip sends no event for a password change.
      const sent = await pendingEvents(user.client, events.queue_id as string);
      expect(sent.filter((e) => e.type !== "heartbeat")).to.deep.equal([]);
    });

    it("refuses a wrong or missing old password, changing nothing", async function () {
      const user = await fresh();
      for (const old of ["not-my-password", undefined, ""]) {
        expectError(
          await user.client.patch("/settings", { old_password: old, new_password: "a new secret" }),
          400,
          "Wrong password!",
        );
      }
      expect(await logsIn(user.email, user.password)).to.equal(true);
      expect(await logsIn(user.email, "a new secret")).to.equal(false);
    });

    it("refuses a new password shorter than 6 or longer than 100 characters", async function () {
      const user = await fresh();
      for (const weak of ["", "abc", "12345", "x".repeat(101)]) {
        expectError(
          await user.client.patch("/settings", { old_password: user.password, new_password: weak }),
          400,
          "New password is too weak!",
        );
        expect(await logsIn(user.email, weak)).to.equal(false);
      }
      expect(await logsIn(user.email, user.password)).to.equal(true);
      expectSuccess(
        await user.client.patch("/settings", { old_password: user.password, new_password: "123456" }),
      );
      expect(await logsIn(user.email, "123456")).to.equal(true);
    });

    it("checks the old password before the new one's strength, as Zulip does", async function () {
      const user = await fresh();
      expectError(
        await user.client.patch("/settings", { old_password: "wrong-one", new_password: "abc" }),
        400,
        "Wrong password!",
      );
    });

    it("an old password alone changes nothing and is not reported as ignored", async function () {
      const user = await fresh();
      const body = expectSuccess(await user.client.patch("/settings", { old_password: user.password }));
      expect(body).not.to.have.property("ignored_parameters_unsupported");
      expect(await logsIn(user.email, user.password)).to.equal(true);
    });

    it("guests change their own password too; bots may not use the endpoint", async function () {
      const guest = await fresh(ROLE.GUEST);
      expectSuccess(
        await guest.client.patch("/settings", { old_password: guest.password, new_password: "guest-secret" }),
      );
      expect(await logsIn(guest.email, "guest-secret")).to.equal(true);

      const bot = await server.factory.user(realm.id, `settings-bot${++serial}`, ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u("hamlet").id,
      });
      const before = await row(bot);
      expectError(
        await bot.client.patch("/settings", { old_password: bot.password, new_password: "bot-secret" }),
        400,
        "This endpoint does not accept bot requests.",
      );
      expectError(
        await bot.client.patch("/settings", { full_name: "Renamed Bot" }),
        400,
        "This endpoint does not accept bot requests.",
      );
      expect(await row(bot)).to.deep.equal(before);
    });
  });

  describe("full_name", function () {
    it("changes the name and tells every active user (realm_user update)", async function () {
      const user = await fresh();
      const watcher = await register(u("othello").client, { event_types: ["realm_user"] });
      const events = await verifyRegisterParity(user.client, {}, async () => {
        expectSuccess(await user.client.patch("/settings", { full_name: "  Rosalind de Boys  " }));
      });
      expect(events.map((e): unknown[] => [e.type, e.op, e.person])).to.deep.equal([
        ["realm_user", "update", { user_id: user.id, full_name: "Rosalind de Boys" }],
      ]);
      const seen = await pendingEvents(u("othello").client, watcher.queue_id as string);
      expect(seen.map((e) => e.person as unknown)).to.deep.equal([
        { user_id: user.id, full_name: "Rosalind de Boys" },
      ]);
      expect((await row(user)).full_name).to.equal("Rosalind de Boys");
    });

    it("the same name again changes nothing and sends nothing", async function () {
      const user = await fresh();
      const { full_name } = await row(user);
      const watcher = await register(u("othello").client, { event_types: ["realm_user"] });
      expectSuccess(await user.client.patch("/settings", { full_name }));
      expect(await pendingEvents(u("othello").client, watcher.queue_id as string)).to.deep.equal([]);
    });

    it("refuses an invalid name, changing nothing", async function () {
      const user = await fresh();
      const before = await row(user);
      for (const [name, msg] of [
        ["Star*", "Invalid characters in name!"],
        ["x".repeat(101), "Name too long!"],
        ["   ", "Name must not be empty!"],
        ["Someone|12", "Invalid format!"],
      ] as const) {
        expectError(await user.client.patch("/settings", { full_name: name }), 400, msg);
      }
      expect(await row(user)).to.deep.equal(before);
    });

    it("with unique names required, refuses another user's name", async function () {
      const user = await fresh();
      await setRealmFields(server, realm, { require_unique_names: true });
      try {
        expectError(
          await user.client.patch("/settings", { full_name: "hamlet dane" }),
          400,
          "Unique names required in this organization.",
        );
      } finally {
        await setRealmFields(server, realm, { require_unique_names: false });
      }
    });

    it("where name changes are disabled, members' and guests' changes are ignored; administrators may", async function () {
      await setRealmFields(server, realm, { name_changes_disabled: true });
      for (const role of [ROLE.MEMBER, ROLE.MODERATOR, ROLE.GUEST]) {
        const user = await fresh(role);
        const before = await row(user);
        const watcher = await register(u("othello").client, { event_types: ["realm_user"] });
        // As in Zulip: no error (clients offer no way to ask), and nothing changes.
        expectSuccess(await user.client.patch("/settings", { full_name: "Not Allowed" }));
        expect(await row(user)).to.deep.equal(before);
        expect(await pendingEvents(u("othello").client, watcher.queue_id as string)).to.deep.equal([]);
      }
      for (const role of [ROLE.ADMINISTRATOR, ROLE.OWNER]) {
        const admin = await fresh(role);
        expectSuccess(await admin.client.patch("/settings", { full_name: `Allowed ${role}` }));
        expect((await row(admin)).full_name).to.equal(`Allowed ${role}`);
      }
    });
  });

  describe("email", function () {
    it("mails a link to the new address; following it changes the email, with Zulip's events", async function () {
      const user = await fresh();
      // The API-only address keeps working while the email changes.
      const client = new Client(server.url, { email: `user${user.id}@${TEST_HOST}`, apiKey: user.apiKey });
      const watcher = await register(u("othello").client, { event_types: ["realm_user"] });
      // client_gravatar: false, because chatd's realm_user flavour sends client_gravatar
      // clients a null avatar_url even about themselves, while register's top-level
      // avatar_url is always the full URL (Zulip's events carry the URL).
      await verifyRegisterParity(client, { client_gravatar: false }, async () => {
        expectSuccess(await client.patch("/settings", { email: " rosalind@arden.test " }));
        // Nothing changes until the new address's owner follows the link.
        expect((await row(user)).delivery_email).to.equal(user.email);
        const page = await confirmEmailChange(server, "rosalind@arden.test");
        expect(page.status).to.equal(200);
        expect(await page.text()).to.contain("Your email address is now rosalind@arden.test.");
      });
      const changed = await row(user);
      expect(changed).to.include({ delivery_email: "rosalind@arden.test", email: "rosalind@arden.test" });
      const seen = await pendingEvents(u("othello").client, watcher.queue_id as string);
      expect(seen.map((e) => e.person as unknown)).to.deep.include({
        user_id: user.id,
        new_email: "rosalind@arden.test",
      });
      expect(seen.map((e) => e.person as unknown)).to.deep.include({
        user_id: user.id,
        delivery_email: "rosalind@arden.test",
      });
      // The new address logs in; the user's key works with it.
      expect(await logsIn("rosalind@arden.test", user.password)).to.equal(true);
      const renamed = new Client(server.url, { email: "rosalind@arden.test", apiKey: user.apiKey });
      expect(expectSuccess(await renamed.get("/users/me")).user_id).to.equal(user.id);
    });

    it("refuses invalid, taken and reserved addresses, changing nothing", async function () {
      const user = await fresh();
      const gone = await fresh();
      await server.app.knex("users").where({ id: gone.id }).update({ is_active: false });
      server.app.realms.invalidate(realm.id);
      const before = await row(user);
      for (const [address, msg] of [
        ["not-an-email", "Invalid address."],
        ["hamlet@zulip.test", "Already has an account."],
        ["HAMLET@zulip.test", "Already has an account."],
        [gone.email, "Account has been deactivated."],
        [`notification-bot@${TEST_HOST}`, "Reserved for system bots."],
      ] as const) {
        expectError(await user.client.patch("/settings", { email: address }), 400, msg);
      }
      expect(await row(user)).to.deep.equal(before);
    });

    it("where email changes are disabled, only administrators may change theirs", async function () {
      await setRealmFields(server, realm, { email_changes_disabled: true });
      for (const role of [ROLE.MEMBER, ROLE.MODERATOR, ROLE.GUEST]) {
        const user = await fresh(role);
        const before = await row(user);
        expectError(
          await user.client.patch("/settings", { email: `new${serial}@zulip.test` }),
          400,
          "Email address changes are disabled in this organization.",
        );
        expect(await row(user)).to.deep.equal(before);
      }
      const admin = await fresh(ROLE.ADMINISTRATOR);
      expectSuccess(await admin.client.patch("/settings", { email: "admin-new@zulip.test" }));
      expect((await confirmEmailChange(server, "admin-new@zulip.test")).status).to.equal(200);
      expect((await row(admin)).delivery_email).to.equal("admin-new@zulip.test");
    });
  });

  describe("a request with several settings", function () {
    it("is all or nothing: one refused setting leaves the others unchanged", async function () {
      const user = await fresh();
      const before = await row(user);
      expectError(
        await user.client.patch("/settings", {
          full_name: "Valid Name",
          email: "hamlet@zulip.test",
          old_password: user.password,
          new_password: "a new secret",
        }),
        400,
        "Already has an account.",
      );
      expect(await row(user)).to.deep.equal(before);
      expect(await logsIn(user.email, user.password)).to.equal(true);

      expectError(
        await user.client.patch("/settings", {
          full_name: "Valid Name",
          old_password: "wrong",
          new_password: "a new secret",
        }),
        400,
        "Wrong password!",
      );
      expect(await row(user)).to.deep.equal(before);
    });

    it("applies them all, and lists parameters that are no setting as ignored", async function () {
      const user = await fresh();
      const body = expectSuccess(
        await user.client.patch("/settings", {
          full_name: "Celia Duke",
          old_password: user.password,
          new_password: "celia-secret",
          twenty_four_hour_time: true,
          enable_sounds: false,
          emojiset: "twitter",
          no_such_setting: 1,
        }),
      );
      expect(body.ignored_parameters_unsupported).to.deep.equal(["no_such_setting"]);
      const after = await row(user);
      expect(after.full_name).to.equal("Celia Duke");
      expect(after.twenty_four_hour_time).to.be.oneOf([1, true]);
      expect(after.enable_sounds).to.be.oneOf([0, false]);
      expect(after.emojiset).to.equal("twitter");
      expect(await logsIn(user.email, "celia-secret")).to.equal(true);
    });

    it("needs authentication", async function () {
      const res = await anonymousClient(server.url).patch("/settings", { full_name: "Nobody" });
      expect(res.status).to.equal(401);
    });
  });
});

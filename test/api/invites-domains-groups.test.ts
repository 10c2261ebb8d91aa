import { expect } from "chai";
import { cast, createChannel, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createGroup, groupRecord, systemGroupId } from "../helpers/user-groups.js";
import { browse, postForm } from "../helpers/web.js";

/** The path of the newest /join/ link in the emails queued for `to`. */
async function joinPath(server: TestServer, to: string): Promise<string> {
  const mail = await server.app
    .knex("emails")
    .where({ to_address: to })
    .orderBy("id", "desc")
    .first<{ text_body: string } | undefined>("text_body");
  const match = /\/join\/[A-Za-z0-9_-]{43}\//.exec(mail?.text_body ?? "");
  expect(match, `an email to ${to} with a link`).not.to.equal(null);
  return match![0];
}

describe("invitations: the realm's domains and group_ids", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let general: number;
  let crew: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    general = await createChannel(u.iago, "general", [u.iago]);
    crew = await createGroup(u.iago.client, "crew");
  });
  after(async function () {
    await server.close();
  });

  const invite = (by: TestUser, emails: string, params: Params = {}) =>
    by.client.post("/invites", { invitee_emails: emails, stream_ids: [general], ...params });
  const invitationCount = async () => (await server.app.knex("invitations")).length;
  const emailsTo = async (to: string) => (await server.app.knex("emails").where({ to_address: to })).length;
  const userId = async (email: string) =>
    (await server.app.knex("users").where({ delivery_email: email }).first<{ id: number } | undefined>())?.id;
  const crewMembers = async () => (await groupRecord(u.iago.client, crew)).members as number[];

  describe("emails_restricted_to_domains", function () {
    before(async function () {
      expectSuccess(
        await u.desdemona.client.post("/realm/domains", { domain: "example.com", allow_subdomains: false }),
      );
      expectSuccess(await u.desdemona.client.patch("/realm", { emails_restricted_to_domains: true }));
    });
    after(async function () {
      await setRealmFields(server, realm, { emails_restricted_to_domains: false });
    });

    it("POST /invites refuses addresses outside the domains with Zulip's errors; nothing is invited", async function () {
      const before = await invitationCount();
      const res = await invite(u.iago, "ok@example.com, out@other.org, tag+x@example.com");
      expectError(
        res,
        400,
        "Some emails did not validate, so we didn't send any invitations.",
        "INVITATION_FAILED",
      );
      expect(res.body).to.deep.include({
        errors: [
          ["out@other.org", "Outside your domain.", false],
          ["tag+x@example.com", "Email addresses containing + are not allowed.", false],
        ],
        sent_invitations: false,
      });
      expect(await invitationCount()).to.equal(before);
      for (const to of ["ok@example.com", "out@other.org", "tag+x@example.com"]) {
        expect(await emailsTo(to), to).to.equal(0);
      }
      expectSuccess(await invite(u.iago, "ok@example.com"));
      expect(await invitationCount()).to.equal(before + 1);
    });

    it("a reusable link refuses an address outside the domains, with Zulip's wording; no account", async function () {
      const link = expectSuccess(await u.iago.client.post("/invites/multiuse", {})).invite_link as string;
      const path = new URL(link).pathname;
      const res = await postForm(server, path, {
        email: "stranger@other.org",
        full_name: "Stranger",
        password: "stranger-password",
      });
      expect(await res.text()).to.include(
        "Your email address, stranger@other.org, is not in one of the domains that are allowed to register for accounts in this organization.",
      );
      expect(await userId("stranger@other.org")).to.equal(undefined);
    });

    it("an email change outside the domains is refused (Zulip's wording); nothing is mailed", async function () {
      expectError(
        await u.hamlet.client.patch("/settings", { email: "hamlet@other.org" }),
        400,
        "Outside your domain.",
      );
      expectError(
        await u.hamlet.client.patch("/settings", { email: "hamlet+x@example.com" }),
        400,
        "Email addresses containing + are not allowed.",
      );
      expect(await server.app.knex("confirmations").where({ kind: "email_change" })).to.deep.equal([]);
      expect(await emailsTo("hamlet@other.org")).to.equal(0);
      expectSuccess(await u.hamlet.client.patch("/settings", { email: "hamlet@example.com" }));
      expect(await emailsTo("hamlet@example.com")).to.equal(1);
    });
  });

  describe("group_ids", function () {
    it("an email invitation's groups are joined on sign-up, with the group events (register parity)", async function () {
      expectSuccess(await invite(u.iago, "gina@example.com", { group_ids: [crew] }));
      const path = await joinPath(server, "gina@example.com");
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        const res = await postForm(server, path, { full_name: "Gina", password: "gina-password" });
        expect(res.status).to.equal(303);
      });
      const gina = (await userId("gina@example.com"))!;
      expect(await crewMembers()).to.deep.equal([gina]);
      expect(
        events
          .filter((e) => e.type === "user_group" && e.group_id === crew)
          .map((e): unknown[] => [e.op, e.user_ids]),
      ).to.deep.equal([["add_members", [gina]]]);
    });

    it("a reusable link's groups are joined by everyone who signs up with it", async function () {
      const link = expectSuccess(await u.iago.client.post("/invites/multiuse", { group_ids: [crew] }))
        .invite_link as string;
      const path = new URL(link).pathname;
      for (const who of ["hana", "ivo"]) {
        const res = await postForm(server, path, {
          email: `${who}@example.com`,
          full_name: who,
          password: `${who}-password`,
        });
        expect(res.status, who).to.equal(303);
      }
      const ids = [await userId("hana@example.com"), await userId("ivo@example.com")];
      expect(await crewMembers()).to.include.members(ids);
    });

    it("refuses a group the inviter may not add to, a system group and an unknown one; nothing is written", async function () {
      const members = await systemGroupId(server, realm.id, "role:members");
      const cases: Array<[TestUser, number, string]> = [
        [u.hamlet, crew, "Insufficient permission"],
        [u.iago, members, "Insufficient permission"],
        [u.iago, 999999, "Invalid user group"],
      ];
      for (const [who, group, message] of cases) {
        const before = await invitationCount();
        expectError(await invite(who, "nobody@example.com", { group_ids: [group] }), 400, message);
        expectError(await who.client.post("/invites/multiuse", { group_ids: [group] }), 400, message);
        expect(await invitationCount(), `${who.email} ${group}`).to.equal(before);
      }
      expect(await emailsTo("nobody@example.com")).to.equal(0);
      expectError(
        await invite(u.iago, "nobody@example.com", { group_ids: "crew" }),
        400,
        "group_ids is not valid JSON",
      );
    });

    it("GET /invites shows no group_ids (Zulip's Invite has none)", async function () {
      expectSuccess(await invite(u.iago, "jo@example.com", { group_ids: [crew] }));
      const listed = (
        expectSuccess(await u.iago.client.get("/invites")).invites as Array<Record<string, unknown>>
      ).find((i) => i.email === "jo@example.com")!;
      expect(listed).not.to.have.property("group_ids");
      expect((await browse(server, await joinPath(server, "jo@example.com"))).status).to.equal(200);
    });
  });
});

import { expect } from "chai";
import { cast, createChannel, setRealmFields, systemGroupId, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { register, pendingEvents, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

interface Invite {
  id: number;
  email?: string;
  link_url?: string;
  invited_by_user_id: number;
  invited_as: number;
  expiry_date: number | null;
  invited: number;
  is_multiuse: boolean;
  notify_referrer_on_join: boolean;
}

describe("invitations: /invites", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let general: number;

  before(async function () {
    server = await startTestServer();
    // Timestamps are asserted exactly: time moves only when a test says so.
    server.clock.freeze();
    realm = await server.factory.realm();
    u = cast(realm);
    general = await createChannel(u.iago, "general", [u.iago]);
  });
  after(async function () {
    await server.close();
  });

  const invites = async (user: TestUser = u.iago) =>
    expectSuccess(await user.client.get("/invites")).invites as Invite[];
  const emailsTo = (to: string) =>
    server.app
      .knex("emails")
      .where({ to_address: to })
      .orderBy("id")
      .select<
        Array<{ subject: string; text_body: string; html_body: string; next_attempt_at: number | string }>
      >("subject", "text_body", "html_body", "next_attempt_at");
  const invite = (user: TestUser, emails: string, params: Params = {}) =>
    user.client.post("/invites", { invitee_emails: emails, stream_ids: [general], ...params });

  it("invites by email: listed for the referrer and administrators, an email queued with the absolute link", async function () {
    const now = server.clock.nowMs() / 1000;
    expectSuccess(
      await invite(u.hamlet, "Ann <ann@example.com>,\nbob@example.com", { invite_expires_in_minutes: 60 }),
    );
    const mine = await invites(u.hamlet);
    expect(mine.map((i) => i.email).sort()).to.deep.equal(["ann@example.com", "bob@example.com"]);
    const ann = mine.find((i) => i.email === "ann@example.com")!;
    expect(ann).to.deep.equal({
      id: ann.id,
      email: "ann@example.com",
      invited_by_user_id: u.hamlet.id,
      invited: Math.floor(now),
      expiry_date: Math.floor(now) + 3600,
      invited_as: 400,
      is_multiuse: false,
      notify_referrer_on_join: true,
    });
    // Administrators see everyone's; other members only their own.
    expect((await invites(u.iago)).map((i) => i.id)).to.include(ann.id);
    expect(await invites(u.othello)).to.deep.equal([]);
    const [mail, ...more] = await emailsTo("ann@example.com");
    expect(more, "an hour's invitation gets no reminder").to.deep.equal([]);
    expect(mail!.subject).to.equal("Hamlet Dane has invited you to join Elsinore");
    expect(mail!.text_body).to.match(/http:\/\/chatd\.test\/join\/[A-Za-z0-9_-]{43}\//);
    expect(mail!.html_body).to.match(/href="http:\/\/chatd\.test\/join\/[A-Za-z0-9_-]{43}\/"/);
  });

  it("defaults to ten days, null never expires, and a long one gets a reminder two days before", async function () {
    const now = Math.floor(server.clock.nowMs() / 1000);
    expectSuccess(await invite(u.iago, "ten@example.com"));
    expectSuccess(await invite(u.iago, "never@example.com", { invite_expires_in_minutes: null }));
    const all = await invites();
    expect(all.find((i) => i.email === "ten@example.com")!.expiry_date).to.equal(now + 10 * 86400);
    expect(all.find((i) => i.email === "never@example.com")!.expiry_date).to.equal(null);
    const ten = await emailsTo("ten@example.com");
    expect(ten.map((m) => m.subject)).to.deep.equal([
      "Iago Dane has invited you to join Elsinore",
      "Reminder: Join Iago Dane at Elsinore",
    ]);
    expect(Number(ten[1]!.next_attempt_at)).to.equal((now + 8 * 86400) * 1000);
    expect((await emailsTo("never@example.com")).length).to.equal(1);
  });

  it("refuses addresses that already have an account, inviting the others (INVITATION_FAILED)", async function () {
    const res = await invite(u.iago, `${u.othello.email}, carol@example.com`);
    expectError(
      res,
      400,
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      "INVITATION_FAILED",
    );
    expect(res.body).to.deep.include({
      errors: [[u.othello.email, "Already has an account.", false]],
      sent_invitations: true,
      license_limit_reached: false,
      daily_limit_reached: false,
    });
    expect((await invites()).map((i) => i.email)).to.include("carol@example.com");
    const only = await invite(u.iago, u.othello.email);
    expectError(only, 400, "We weren't able to invite anyone.", "INVITATION_FAILED");
    expect(only.body).to.deep.include({ sent_invitations: false });
  });

  it("refuses the whole request when an address is invalid; nothing is invited", async function () {
    const before = await invites();
    const res = await invite(u.iago, "dave@example.com, not-an-address");
    expectError(
      res,
      400,
      "Some emails did not validate, so we didn't send any invitations.",
      "INVITATION_FAILED",
    );
    expect(res.body).to.deep.include({
      errors: [["not-an-address", "Invalid address."]].map((e) => [...e, false]),
    });
    expect(await invites()).to.deep.equal(before);
    expect(await emailsTo("dave@example.com")).to.deep.equal([]);
    expectError(await invite(u.iago, ""), 400, "You must specify at least one email address.");
    expectError(
      await invite(u.iago, "dave@example.com", { invite_expires_in_minutes: 0 }),
      400,
      "invite_expires_in_minutes is too small",
    );
    expectError(
      await invite(u.iago, "dave@example.com", { stream_ids: "general" }),
      400,
      "stream_ids is not valid JSON",
    );
    expect(await invites()).to.deep.equal(before);
  });

  it("only owners invite owners, only administrators invite administrators or moderators", async function () {
    const before = await invites();
    expectError(
      await invite(u.iago, "o@example.com", { invite_as: 100 }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    for (const role of [200, 300]) {
      expectError(
        await invite(u.prospero, "m@example.com", { invite_as: role }),
        400,
        "Must be an organization administrator",
      );
    }
    expectError(await invite(u.iago, "x@example.com", { invite_as: 500 }), 400, "Invalid invite_as");
    expect(await invites()).to.deep.equal(before);
    expectSuccess(await invite(u.desdemona, "owner@example.com", { invite_as: 100 }));
    expectSuccess(await invite(u.iago, "admin@example.com", { invite_as: 200 }));
    expect((await invites()).find((i) => i.email === "owner@example.com")!.invited_as).to.equal(100);
  });

  it("follows can_invite_users_group and refuses guests; nothing changes", async function () {
    const before = await invites();
    expectError(await invite(u.polonius, "g@example.com"), 400, "Not allowed for guest users");
    expectError(await u.polonius.client.get("/invites"), 400, "Not allowed for guest users");
    expectError(await u.polonius.client.post("/invites/multiuse", {}), 400, "Not allowed for guest users");
    const admins = await systemGroupId(server, realm, "role:administrators");
    const members = await systemGroupId(server, realm, "role:members");
    await setRealmFields(server, realm, { can_invite_users_group_id: admins });
    try {
      expectError(await invite(u.hamlet, "h@example.com"), 400, "Insufficient permission");
      expect(await invites()).to.deep.equal(before);
      expectSuccess(await invite(u.iago, "by-admin@example.com"));
    } finally {
      await setRealmFields(server, realm, { can_invite_users_group_id: members });
    }
  });

  it("checks the channels: unknown or private ones the inviter cannot reach are refused", async function () {
    const before = await invites();
    const secret = await createChannel(u.iago, "secret", [u.iago], { invite_only: true });
    expectError(
      await invite(u.hamlet, "s@example.com", { stream_ids: [secret] }),
      400,
      `Invalid channel ID ${secret}. No invites were sent.`,
    );
    expectError(
      await invite(u.hamlet, "s@example.com", { stream_ids: [99999] }),
      400,
      "Invalid channel ID 99999. No invites were sent.",
    );
    expect(await invites()).to.deep.equal(before);
  });

  it("creates reusable links (create_multiuse_invite_group), listed with their URL", async function () {
    expectError(await u.hamlet.client.post("/invites/multiuse", {}), 400, "Insufficient permission");
    const body = expectSuccess(
      await u.iago.client.post("/invites/multiuse", { invite_as: 600, stream_ids: [general] }),
    );
    const link = body.invite_link as string;
    expect(link).to.match(/^http:\/\/chatd\.test\/join\/[A-Za-z0-9_-]{43}\/$/);
    const listed = (await invites()).find((i) => i.is_multiuse)!;
    expect(listed).to.include({ link_url: link, invited_as: 600, invited_by_user_id: u.iago.id });
    expect(listed).not.to.have.property("email");
    expect(await invites(u.hamlet)).to.satisfy((list: Invite[]) => list.every((i) => !i.is_multiuse));
  });

  it("revokes: the referrer or an administrator; others get No such invitation; nothing changes", async function () {
    expectSuccess(await invite(u.othello, "rev@example.com"));
    const id = (await invites(u.othello)).find((i) => i.email === "rev@example.com")!.id;
    expectError(
      await u.cordelia.client.delete(`/invites/${id}`),
      400,
      "Must be an organization administrator",
    );
    expectError(await u.iago.client.delete("/invites/99999"), 400, "No such invitation");
    expectError(await u.iago.client.delete(`/invites/multiuse/${id}`), 400, "No such invitation");
    expect((await invites(u.othello)).map((i) => i.id)).to.include(id);
    expectSuccess(await u.iago.client.delete(`/invites/${id}`));
    expect((await invites(u.othello)).map((i) => i.id)).not.to.include(id);
    expectError(await u.iago.client.delete(`/invites/${id}`), 400, "No such invitation");

    expectSuccess(await u.iago.client.post("/invites/multiuse", {}));
    const linkId = (await invites()).filter((i) => i.is_multiuse).at(-1)!.id;
    expectSuccess(await u.iago.client.delete(`/invites/multiuse/${linkId}`));
    expectError(
      await u.iago.client.delete(`/invites/multiuse/${linkId}`),
      400,
      "Invitation has already been revoked",
    );
  });

  it("an administrator cannot revoke an owner's invitation to be an owner", async function () {
    expectSuccess(await invite(u.desdemona, "second-owner@example.com", { invite_as: 100 }));
    const id = (await invites(u.desdemona)).find((i) => i.email === "second-owner@example.com")!.id;
    expectError(
      await u.iago.client.delete(`/invites/${id}`),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect((await invites(u.desdemona)).map((i) => i.id)).to.include(id);
  });

  it("resends: a new email with a new link, the old link no longer works", async function () {
    expectSuccess(await invite(u.hamlet, "again@example.com", { invite_expires_in_minutes: 60 }));
    const id = (await invites(u.hamlet)).find((i) => i.email === "again@example.com")!.id;
    expectError(
      await u.othello.client.post(`/invites/${id}/resend`),
      400,
      "Must be an organization administrator",
    );
    expect((await emailsTo("again@example.com")).length).to.equal(1);
    expectSuccess(await u.hamlet.client.post(`/invites/${id}/resend`));
    const [first, second] = await emailsTo("again@example.com");
    const linkOf = (text: string) => /\/join\/[A-Za-z0-9_-]{43}\//.exec(text)![0];
    expect(linkOf(second!.text_body)).not.to.equal(linkOf(first!.text_body));
    const old = await fetch(new URL(linkOf(first!.text_body), server.url));
    expect(old.status).to.equal(404);
    const fresh = await fetch(new URL(linkOf(second!.text_body), server.url));
    expect(fresh.status).to.equal(200);
    expectError(await u.hamlet.client.post("/invites/99999/resend"), 400, "No such invitation");
  });

  it("sends invites_changed to administrators and the referrer; register + events = a fresh register", async function () {
    const othelloQueue = (await register(u.othello.client)).queue_id as string;
    const cordeliaQueue = (await register(u.cordelia.client)).queue_id as string;
    const events = await verifyRegisterParity(u.iago.client, {}, async () => {
      expectSuccess(await invite(u.othello, "evt@example.com"));
    });
    expect(events.map((e) => e.type as string)).to.deep.equal(["invites_changed"]);
    expect((await pendingEvents(u.othello.client, othelloQueue)).map((e) => e.type as string)).to.include(
      "invites_changed",
    );
    expect(
      (await pendingEvents(u.cordelia.client, cordeliaQueue)).map((e) => e.type as string),
    ).not.to.include("invites_changed");
  });
});

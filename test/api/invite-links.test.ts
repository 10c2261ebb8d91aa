import { expect } from "chai";
import { createLogger } from "../../src/logger.js";
import { expectSuccess } from "../helpers/client.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestSmtpServer } from "../helpers/smtp.js";
import { browse, logIn } from "../helpers/web.js";
import { waitFor } from "../helpers/webhook-receiver.js";

const LINK = /http:\/\/chatd\.test\/join\/[A-Za-z0-9_-]{43}\//;
const linkIn = (text: string) => LINK.exec(text)![0];

/** The app page's word on email (meta chatd-email), for a logged-in user. */
async function pageEmailSetting(server: TestServer, realm: TestRealm): Promise<string | undefined> {
  const { cookie } = await logIn(server, realm.users.iago!);
  const html = await (await browse(server, "/", { headers: { cookie } })).text();
  return /<meta name="chatd-email" content="([^"]*)">/.exec(html)?.[1];
}

describe("invitations: invite_links when email is off (chatd extension)", function () {
  let server: TestServer;
  let realm: TestRealm;
  let log = "";

  before(async function () {
    server = await startTestServer({}, { logger: createLogger("debug", (line) => (log += line)) });
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const queuedLink = async (to: string) => {
    const bodies = (await server.app
      .knex("emails")
      .where({ to_address: to })
      .orderBy("id", "desc")
      .pluck("text_body")) as string[];
    return linkIn(bodies[0]!);
  };

  it("POST /invites answers the inviter with each invitee's link, the one the outbox email holds", async function () {
    const hamlet = realm.users.hamlet!;
    const body = expectSuccess(
      await hamlet.client.post("/invites", {
        invitee_emails: "Ann <ann@example.com>, bob@example.com",
        stream_ids: [],
      }),
    );
    const links = body.invite_links as Array<{ email: string; link: string }>;
    expect(links.map((l) => l.email)).to.deep.equal(["ann@example.com", "bob@example.com"]);
    expect(links[0]!.link).to.equal(await queuedLink("ann@example.com"));
    expect(links[1]!.link).to.equal(await queuedLink("bob@example.com"));
    expect(links[0]!.link).not.to.equal(links[1]!.link);
    const page = await browse(server, new URL(links[0]!.link).pathname);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain("ann@example.com");
    expect(log, "the request was logged").to.contain("/invites");
    for (const { link } of links) expect(log).not.to.contain(new URL(link).pathname.split("/")[2]);
  });

  it("POST /invites/{id}/resend answers with the new link; the old one no longer works", async function () {
    const hamlet = realm.users.hamlet!;
    const first = expectSuccess(
      await hamlet.client.post("/invites", { invitee_emails: "again@example.com", stream_ids: [] }),
    ).invite_links as Array<{ email: string; link: string }>;
    const invites = expectSuccess(await hamlet.client.get("/invites")).invites as Array<{
      id: number;
      email?: string;
    }>;
    const id = invites.find((i) => i.email === "again@example.com")!.id;
    const body = expectSuccess(await hamlet.client.post(`/invites/${id}/resend`));
    const [resent] = body.invite_links as Array<{ email: string; link: string }>;
    expect(resent!.email).to.equal("again@example.com");
    expect(resent!.link).to.equal(await queuedLink("again@example.com"));
    expect(resent!.link).not.to.equal(first[0]!.link);
    expect((await browse(server, new URL(first[0]!.link).pathname)).status).to.equal(404);
    expect((await browse(server, new URL(resent!.link).pathname)).status).to.equal(200);
    expect(log).not.to.contain(new URL(resent!.link).pathname.split("/")[2]);
  });

  it("the app's page says email is off", async function () {
    expect(await pageEmailSetting(server, realm)).to.equal("off");
  });
});

describe("invitations: no invite_links when email is on", function () {
  const smtp = new TestSmtpServer();
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    await smtp.start();
    server = await startTestServer(smtp.config());
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
    await smtp.stop();
  });

  it("POST /invites and its resend answer as Zulip does: the link goes only by email", async function () {
    const hamlet = realm.users.hamlet!;
    const res = await hamlet.client.post("/invites", { invitee_emails: "ann@example.com", stream_ids: [] });
    expect(expectSuccess(res)).to.deep.equal({ result: "success", msg: "" });
    const [invite] = expectSuccess(await hamlet.client.get("/invites")).invites as Array<{ id: number }>;
    const resend = await hamlet.client.post(`/invites/${invite!.id}/resend`);
    expect(expectSuccess(resend)).to.deep.equal({ result: "success", msg: "" });
    await waitFor(() => smtp.received.length === 2);
    expect(smtp.received.map((m) => m.to)).to.deep.equal([["ann@example.com"], ["ann@example.com"]]);
  });

  it("the app's page says email is on", async function () {
    expect(await pageEmailSetting(server, realm)).to.equal("on");
  });
});

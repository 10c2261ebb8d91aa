import { expect } from "chai";
import { customWelcomeMessage, initialDirectMessage } from "../../src/actions/welcome-bot.js";
import type { ChatEvent, EventRecipients } from "../../src/wire/events.js";
import { createBot } from "../helpers/bots.js";
import { cast, type Cast } from "../helpers/channels.js";
import { Client, expectSuccess } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";
import { postForm } from "../helpers/web.js";

interface RawMessage {
  id: number;
  sender_email: string;
  sender_full_name: string;
  content: string;
  flags: string[];
  type: string;
}

const WELCOME_BOT = `welcome-bot@${TEST_HOST}`;

/** Every message the client can see, oldest first, in Markdown. */
async function allMessages(client: Client): Promise<RawMessage[]> {
  const body = expectSuccess(
    await client.get("/messages", {
      narrow: [],
      anchor: "oldest",
      num_before: 0,
      num_after: 1000,
      apply_markdown: false,
    }),
  );
  return body.messages as RawMessage[];
}

/** Zulip's process_new_human_user: Welcome Bot's direct messages to each new person. */
describe("Welcome Bot greets new people", function () {
  let server: TestServer;
  let u: Cast;
  /** Events published while recording, with their recipients. */
  let published: Array<{ event: ChatEvent; recipients: number[]; extras: Map<number, unknown> }> = [];

  before(async function () {
    server = await startTestServer({ missed_message_email_delay_secs: 1 });
    u = cast(await server.factory.realm());
    const hub = server.app.events;
    const send = hub.send.bind(hub);
    hub.send = (realmId: number, event: ChatEvent, recipients: EventRecipients) => {
      const listed = recipients instanceof Map ? recipients : [...(recipients as Iterable<number>)];
      const ids = listed instanceof Map ? [...listed.keys()] : listed;
      published.push({ event, recipients: ids, extras: listed instanceof Map ? listed : new Map() });
      send(realmId, event, listed);
    };
  });
  after(async function () {
    await server.close();
  });

  /** POST /users as the owner, then the new person's API client. */
  async function createPerson(email: string, fullName: string): Promise<{ id: number; client: Client }> {
    const password = `${fullName}-password`;
    const created = expectSuccess(
      await u.desdemona.client.post("/users", { email, password, full_name: fullName }),
    );
    const login = expectSuccess(await server.anonymous.post("/fetch_api_key", { username: email, password }));
    return {
      id: created.user_id as number,
      client: new Client(server.url, { email, apiKey: login.api_key as string }),
    };
  }
  const setCustomText = async (text: string) => {
    expectSuccess(await u.iago.client.patch("/realm", { welcome_message_custom_text: text }));
  };
  const welcomeMessagesTo = (userId: number) =>
    server.app
      .knex("messages as m")
      .join("users as s", "s.id", "m.sender_id")
      .join("recipients as r", "r.id", "m.recipient_id")
      .where({ "s.email": WELCOME_BOT, "r.type": 1, "r.type_id": userId })
      .pluck<number[]>("m.id");

  it("POST /users: one direct message from Welcome Bot, unread and starred, with message events", async function () {
    published = [];
    const ann = await createPerson("ann@zulip.test", "Ann");
    const messages = await allMessages(ann.client);
    const welcome = messages.filter((m) => m.sender_email === WELCOME_BOT);
    expect(welcome.map((m) => [m.type, m.sender_full_name, m.content])).to.deep.equal([
      ["private", "Welcome Bot", initialDirectMessage()],
    ]);
    expect(welcome[0]!.content).to.equal(
      "Hello, and welcome to Zulip!👋\n\nTo chat from the Zulip mobile or desktop apps or a terminal, " +
        "check out [how to connect them](/help/clients)!",
    );
    expect(welcome[0]!.flags).to.have.members(["starred"]);
    // The link is one chatd serves.
    expect((await fetch(`${server.url}/help/clients`)).status).to.equal(200);
    // Unread for the new person: counted in register's unread_msgs as a DM from Welcome Bot.
    const state = await register(ann.client, { fetch_event_types: ["message", "update_message_flags"] });
    const unread = state.unread_msgs as {
      count: number;
      pms: Array<{ other_user_id: number; unread_message_ids: number[] }>;
    };
    const botId = (await server.app.knex("users").where({ email: WELCOME_BOT }).first<{ id: number }>("id"))
      .id;
    expect(unread.pms).to.deep.equal([
      { other_user_id: botId, sender_id: botId, unread_message_ids: [welcome[0]!.id] },
    ]);
    // One message event, to the new person (and the sending bot, as Zulip's senders).
    const events = published.filter((p) => p.event.type === "message");
    expect(
      events.map((p) => [
        [...p.recipients].sort((a, b) => a - b),
        (p.event as { message: { id: number } }).message.id,
      ]),
    ).to.deep.equal([[[ann.id, botId].sort((a, b) => a - b), welcome[0]!.id]]);
    expect(events[0]!.extras.get(ann.id)).to.deep.equal({ flags: ["starred"] });
  });

  it("adds the organization's welcome text as a second message, quoted; nothing when it is empty", async function () {
    await setCustomText("Read #**general** and **be kind**.");
    const bea = await createPerson("bea@zulip.test", "Bea");
    const welcome = (await allMessages(bea.client)).filter((m) => m.sender_email === WELCOME_BOT);
    expect(welcome.map((m) => m.content)).to.deep.equal([
      initialDirectMessage(),
      "The administrators for this organization would also like to share the following information:\n" +
        "```` quote\nRead #**general** and **be kind**.\n````",
    ]);
    expect(welcome.map((m) => m.flags)).to.deep.equal([["starred"], []]);
    expect(welcome[1]!.content).to.equal(customWelcomeMessage("Read #**general** and **be kind**."));
    await setCustomText("");
    const cal = await createPerson("cal@zulip.test", "Cal");
    expect((await allMessages(cal.client)).filter((m) => m.sender_email === WELCOME_BOT)).to.have.length(1);
  });

  it("sends no missed-message email for it, though the new person has no open client", async function () {
    const dan = await createPerson("dan@zulip.test", "Dan");
    const [greeting] = await welcomeMessagesTo(dan.id);
    const copy = await server.app
      .knex("user_messages")
      .where({ user_id: dan.id, message_id: greeting ?? 0 })
      .first<{ flags: number }>("flags");
    expect(copy.flags & 1, "unread").to.equal(0);
    const pending = await server.app.knex("missed_message_notifications").where({ user_id: dan.id });
    expect(pending).to.deep.equal([]);
    server.clock.advance(5000);
    await server.app.missedMessageEmails.idle();
    expect(await server.app.knex("emails").where({ to_address: "dan@zulip.test" })).to.deep.equal([]);
  });

  it("bots get none: POST /bots", async function () {
    const bot = await createBot(u.hamlet, "greeter");
    expect(await welcomeMessagesTo(bot.id)).to.deep.equal([]);
    expect(await allMessages(bot.client)).to.deep.equal([]);
    // A person created right after is greeted.
    const fay = await createPerson("fay@zulip.test", "Fay");
    expect(await welcomeMessagesTo(fay.id)).to.have.lengthOf(1);
  });

  it("sign-up through an invitation: after the referrer's notice, the greeting", async function () {
    expectSuccess(
      await u.hamlet.client.post("/invites", { invitee_emails: "eve@example.com", stream_ids: [] }),
    );
    const mail = await server.app
      .knex("emails")
      .where({ to_address: "eve@example.com" })
      .first<{ text_body: string }>("text_body");
    const path = /\/join\/[A-Za-z0-9_-]{43}\//.exec(mail.text_body)![0];
    const res = await postForm(server, path, { full_name: "Eve Example", password: "eve-password" });
    expect(res.status).to.equal(303);
    const eve = await server.app
      .knex("users")
      .where({ delivery_email: "eve@example.com" })
      .first<{ id: number }>("id");
    const welcome = await welcomeMessagesTo(eve.id);
    expect(welcome).to.have.length(1);
    const notice = (
      expectSuccess(await u.hamlet.client.get("/messages", { anchor: "newest", num_before: 1, num_after: 0 }))
        .messages as Array<{ id: number; sender_full_name: string }>
    )[0]!;
    expect(notice.sender_full_name).to.equal("Notification Bot");
    // Zulip's order: the referrer is told first, Welcome Bot's greeting comes last.
    expect(welcome[0]).to.be.greaterThan(notice.id);
    const flags = await server.app
      .knex("user_messages")
      .where({ user_id: eve.id, message_id: welcome[0] })
      .first<{ flags: number }>("flags");
    expect(flags.flags & 1, "unread").to.equal(0);
  });

  it("refused creations send nothing", async function () {
    const before = await server.app.knex("messages").count<Array<{ n: number | string }>>("id as n");
    const refused = await u.hamlet.client.post("/users", {
      email: "nope@zulip.test",
      password: "nope-password",
      full_name: "Nope",
    });
    expect(refused.status).to.equal(400);
    const after = await server.app.knex("messages").count<Array<{ n: number | string }>>("id as n");
    expect(Number(after[0]!.n)).to.equal(Number(before[0]!.n));
  });
});

import { expect } from "chai";
import { customWelcomeMessage } from "../../src/actions/welcome-bot.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";

describe("POST /realm/test_welcome_bot_custom_message", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const messageCount = async (realmId: number) =>
    (await server.app.knex("messages").where({ realm_id: realmId }).select("id")).length;

  it("Welcome Bot sends the text given to the administrator alone; the answer is its message_id", async function () {
    const { u } = await fresh();
    const iago = u("iago");
    const { queue_id } = await register(iago.client, { event_types: ["message"] });
    const body = expectSuccess(
      await iago.client.post("/realm/test_welcome_bot_custom_message", {
        welcome_message_custom_text: "Read #**general** and **be kind**.",
      }),
    );
    const id = body.message_id as number;
    expect(id).to.be.a("number");
    const message = expectSuccess(await iago.client.get(`/messages/${id}`)).message as Record<
      string,
      unknown
    >;
    expect(message).to.include({
      type: "private",
      sender_email: `welcome-bot@${TEST_HOST}`,
      sender_full_name: "Welcome Bot",
    });
    expect(message.content).to.include("<strong>be kind</strong>");
    // Framed as new people get it (Welcome Bot's second message to them).
    const raw = expectSuccess(await iago.client.get(`/messages/${id}`, { apply_markdown: false }))
      .message as {
      content: string;
    };
    expect(raw.content).to.equal(customWelcomeMessage("Read #**general** and **be kind**."));
    expect(raw.content).to.match(/^The administrators for this organization would also like to share/);
    expect((message.display_recipient as Array<{ id: number }>).map((r) => r.id)).to.include(iago.id);
    const events = (await pendingEvents(iago.client, queue_id)).filter((e) => e.type === "message");
    expect(events.map((e): unknown => e.message.id)).to.deep.equal([id]);
    // Welcome Bot is a system bot, as in Zulip: listed with the cross-realm bots.
    const state = await register(iago.client, { fetch_event_types: ["realm_user"] });
    const bots = (state.cross_realm_bots as Array<{ email: string; full_name: string }>).map(
      (b) => b.full_name,
    );
    expect(bots).to.include("Welcome Bot");
    // A second test reuses the same bot.
    const again = expectSuccess(
      await iago.client.post("/realm/test_welcome_bot_custom_message", { welcome_message_custom_text: "Hi" }),
    );
    const second = expectSuccess(await iago.client.get(`/messages/${again.message_id as number}`));
    expect((second.message as { sender_id: number }).sender_id).to.equal(message.sender_id);
  });

  it("refuses everyone but administrators, sending nothing", async function () {
    const { realm, u } = await fresh();
    const before = await messageCount(realm.id);
    for (const caller of ["prospero", "hamlet", "polonius"]) {
      expectError(
        await u(caller).client.post("/realm/test_welcome_bot_custom_message", {
          welcome_message_custom_text: "Mine",
        }),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
    }
    expect(await messageCount(realm.id)).to.equal(before);
    expectSuccess(
      await u("desdemona").client.post("/realm/test_welcome_bot_custom_message", {
        welcome_message_custom_text: "Owners may",
      }),
    );
    expect(await messageCount(realm.id)).to.equal(before + 1);
  });

  it("refuses an empty, missing or too long text, sending nothing", async function () {
    const { realm, u } = await fresh();
    const before = await messageCount(realm.id);
    const post = (params: Record<string, string>) =>
      u("iago").client.post("/realm/test_welcome_bot_custom_message", params);
    expectError(await post({ welcome_message_custom_text: "" }), 400, "Message must not be empty");
    expectError(
      await post({}),
      400,
      "Missing 'welcome_message_custom_text' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await post({ welcome_message_custom_text: "x".repeat(8001) }),
      400,
      "welcome_message_custom_text is too long (limit: 8000 characters)",
    );
    expect(await messageCount(realm.id)).to.equal(before);
  });
});

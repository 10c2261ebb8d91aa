import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

// GET /users/me answers from an in-memory cache that follows the event stream; these
// tests check it never serves a stale value after a change.
describe("GET /users/me from the user-state cache", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
  });
  after(async function () {
    await server.close();
  });

  const me = async () => {
    const body: Record<string, unknown> = expectSuccess(await u.cordelia.client.get("/users/me"));
    return body;
  };

  it("follows max_message_id as messages arrive", async function () {
    expect((await me()).max_message_id).to.equal(-1);
    const first = await sendDirect(u.hamlet, [u.cordelia], "one");
    expect((await me()).max_message_id).to.equal(first);
    // A message to someone else leaves it alone; one to cordelia moves it.
    await sendDirect(u.hamlet, [u.othello], "not for cordelia");
    expect((await me()).max_message_id).to.equal(first);
    const second = await sendDirect(u.othello, [u.cordelia, u.hamlet], "two");
    expect((await me()).max_message_id).to.equal(second);
  });

  it("follows max_message_id when starring or reacting adds a message one never received", async function () {
    const channel = await createChannel(u.hamlet, "Unheard by cordelia", [u.hamlet]);
    const registered = async (): Promise<unknown> => {
      const body = expectSuccess(
        await u.cordelia.client.post("/register", { fetch_event_types: '["message"]' }),
      );
      return body.max_message_id;
    };
    const starred = await sendToChannel(u.hamlet, channel, "t", "star me");
    const before = (await me()).max_message_id as number;
    expect(before).to.be.below(starred);
    expect(await registered()).to.equal(before);
    // Starring a public channel's message adds it to cordelia's messages (Zulip's historical row).
    expectSuccess(
      await u.cordelia.client.post("/messages/flags", {
        messages: `[${starred}]`,
        op: "add",
        flag: "starred",
      }),
    );
    expect((await me()).max_message_id).to.equal(starred);
    expect(await registered()).to.equal(starred);
    const reacted = await sendToChannel(u.hamlet, channel, "t", "react to me");
    expect((await me()).max_message_id).to.equal(starred);
    expectSuccess(await u.cordelia.client.post(`/messages/${reacted}/reactions`, { emoji_name: "smile" }));
    expect((await me()).max_message_id).to.equal(reacted);
    expect(await registered()).to.equal(reacted);
  });

  it("follows the caller's custom profile values and field deletion", async function () {
    const field = expectSuccess(
      await u.iago.client.post("/realm/profile_fields", { field_type: 1, name: "Phone" }),
    ).id as number;
    expect((await me()).profile_data).to.deep.equal({});
    expectSuccess(
      await u.cordelia.client.patch("/users/me/profile_data", {
        data: [{ id: field, value: "555-0100" }],
      }),
    );
    expect((await me()).profile_data).to.deep.equal({
      [field]: { value: "555-0100", rendered_value: "<p>555-0100</p>" },
    });
    expectSuccess(await u.iago.client.delete(`/realm/profile_fields/${field}`));
    expect((await me()).profile_data).to.deep.equal({});
  });
});

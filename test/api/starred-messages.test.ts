import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import { register, verifyRegisterParity } from "../helpers/events.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("starred_messages in /register", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Verona", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  const star = async (op: "add" | "remove", messages: number[]) => {
    expectSuccess(await u.othello.client.post("/messages/flags", { messages, op, flag: "starred" }));
  };
  const starred = async () =>
    (await register(u.othello.client, { fetch_event_types: ["starred_messages"] }))
      .starred_messages as number[];

  it("lists the user's starred messages, oldest first; state plus events equals a fresh register", async function () {
    const a = await sendToChannel(u.hamlet, "Verona", "castle", "one");
    const b = await sendDirect(u.hamlet, [u.othello], "two");
    const c = await sendToChannel(u.hamlet, "Verona", "castle", "three");
    expect(await starred()).to.deep.equal([]);
    await star("add", [c, a]);
    expect(await starred()).to.deep.equal([a, c]);
    expect(
      (await register(u.hamlet.client, { fetch_event_types: ["starred_messages"] })).starred_messages,
    ).to.deep.equal([]);
    const events = await verifyRegisterParity(
      u.othello.client,
      { fetch_event_types: ["starred_messages"] },
      async () => {
        await star("add", [b]);
        await star("remove", [a]);
        expectSuccess(await u.hamlet.client.delete(`/messages/${c}`));
      },
    );
    expect(events.map((e) => e.type as string)).to.deep.equal([
      "update_message_flags",
      "update_message_flags",
      "delete_message",
    ]);
    expect(await starred()).to.deep.equal([b]);
  });
});

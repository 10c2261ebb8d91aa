import { expect } from "chai";
import type { Event } from "../helpers/apply-events.js";
import { cast, createChannel, subscriberIds, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type ApiResponse, type Params } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { messageCount, postDirect, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";

/**
 * Every lookup of a user by an email a caller gives goes through the one visibility rule
 * of GET /users/{email}: the dummy address user{id}@{host} (and the API email) works for
 * everyone, the real email only where email_address_visibility lets the caller see it,
 * and a hidden real email is answered exactly as an address nobody has.
 */
describe("hidden emails: lookups by a caller's email", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let ophelia: TestUser; // real email visible to administrators only
  let yorick: TestUser; // real email visible to nobody
  const REAL = "ophelia@zulip.test";
  const UNKNOWN = "nobody@zulip.test";
  let dummy: string;
  const m: Record<string, number> = {};
  let verona: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    ophelia = await server.factory.user(realm.id, "ophelia", 400, { emailAddressVisibility: 3 });
    yorick = await server.factory.user(realm.id, "yorick", 400, { emailAddressVisibility: 4 });
    dummy = `user${ophelia.id}@${TEST_HOST}`;
    expect(ophelia.email).to.equal(dummy);
    verona = await createChannel(u.hamlet, "Verona", [u.hamlet, u.iago, u.polonius, ophelia, yorick]);
    m.channel = await sendToChannel(ophelia, "Verona", "lament", "there's rosemary");
    m.other = await sendToChannel(u.hamlet, "Verona", "lament", "to be");
    m.yorick = await sendToChannel(yorick, "Verona", "skull", "alas");
    m.toHamlet = await sendDirect(ophelia, [u.hamlet], "remembrances");
    m.fromHamlet = await sendDirect(u.hamlet, [ophelia], "get thee to a nunnery");
    m.group = await sendDirect(u.hamlet, [ophelia, u.othello], "all three");
    m.toIago = await sendDirect(ophelia, [u.iago], "to the admin");
    m.toPolonius = await sendDirect(ophelia, [u.polonius], "to father");
  });
  after(async function () {
    await server.close();
  });

  /** The response with every occurrence of `address` replaced by a placeholder. */
  const masked = (res: ApiResponse, address: string) => ({
    status: res.status,
    body: JSON.parse(JSON.stringify(res.body).split(address).join("<address>")) as unknown,
  });
  /** The hidden real email answers exactly as the unknown address does (no oracle). */
  async function refusedAsUnknown(ask: (address: string) => Promise<ApiResponse>, real = REAL) {
    const hidden = await ask(real);
    const unknown = await ask(UNKNOWN);
    expect(hidden.status).to.equal(400);
    expect(masked(hidden, real)).to.deep.equal(masked(unknown, UNKNOWN));
    return hidden;
  }

  const get = (user: TestUser, narrow: object) =>
    user.client.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow });
  async function narrowed(user: TestUser, narrow: object): Promise<number[]> {
    const body = expectSuccess(await get(user, narrow));
    return (body.messages as Array<{ id: number }>).map((x) => x.id);
  }

  describe("GET /messages narrows", function () {
    for (const operator of ["sender", "dm", "pm-with", "dm-including", "group-pm-with"]) {
      it(`${operator}: a hidden real email is an unknown user, for members, moderators and guests`, async function () {
        for (const viewer of [u.hamlet, u.polonius, u.prospero]) {
          for (const negated of [false, true]) {
            const res = await refusedAsUnknown((address) =>
              get(viewer, [{ operator, operand: address, negated }]),
            );
            const expected = ["dm", "pm-with"].includes(operator)
              ? `unknown user in ${REAL}`
              : `unknown user ${REAL}`;
            expectError(res, 400, `Invalid narrow operator: ${expected}`, "BAD_NARROW");
            expect(res.body).to.include({ desc: expected });
          }
        }
      });
    }

    it("sender: the dummy address works for everyone, the real email where visible", async function () {
      expect(await narrowed(u.hamlet, [["sender", dummy]])).to.deep.equal([m.channel, m.toHamlet]);
      expect(await narrowed(u.polonius, [["sender", dummy]])).to.deep.equal([m.channel, m.toPolonius]);
      // Administrators may see the address (visibility "administrators"), any case.
      expect(await narrowed(u.iago, [["sender", REAL]])).to.deep.equal([m.channel, m.toIago]);
      expect(
        await narrowed(u.desdemona, [
          ["channel", "Verona"],
          ["sender", REAL.toUpperCase()],
        ]),
      ).to.deep.equal([m.channel]);
      // Negated, the operand names the same person.
      expect(
        await narrowed(u.iago, [{ operator: "sender", operand: REAL, negated: true }]),
      ).to.include.members([m.other, m.yorick]);
      // Visibility "nobody": not even an owner may name Yorick by his real email.
      await refusedAsUnknown((address) => get(u.desdemona, [["sender", address]]), "yorick@zulip.test");
      const yorickDummy = `user${yorick.id}@${TEST_HOST}`;
      expect(
        await narrowed(u.desdemona, [
          ["channel", "Verona"],
          ["sender", yorickDummy],
        ]),
      ).to.deep.equal([m.yorick]);
      // A public address is its own API email, and its dummy names the same person.
      expect(await narrowed(u.iago, [["sender", u.hamlet.email]])).to.deep.equal([m.other]);
      expect(await narrowed(u.iago, [["sender", `user${u.hamlet.id}@${TEST_HOST}`]])).to.deep.equal([
        m.other,
      ]);
    });

    it("dm and pm-with: the dummy address works, the real email where visible", async function () {
      for (const operator of ["dm", "pm-with"]) {
        expect(await narrowed(u.hamlet, [[operator, dummy]])).to.deep.equal([m.toHamlet, m.fromHamlet]);
        expect(await narrowed(u.hamlet, [[operator, `${dummy},${u.othello.email}`]])).to.deep.equal([
          m.group,
        ]);
        expect(await narrowed(u.iago, [[operator, REAL]])).to.deep.equal([m.toIago]);
        // One hidden address in a list refuses the whole list, as one unknown one does.
        await refusedAsUnknown((address) => get(u.hamlet, [[operator, `${address},${u.othello.email}`]]));
      }
    });

    it("dm-including and group-pm-with: the dummy address works, the real email where visible", async function () {
      expect(await narrowed(u.hamlet, [["dm-including", dummy]])).to.deep.equal([
        m.toHamlet,
        m.fromHamlet,
        m.group,
      ]);
      expect(await narrowed(u.hamlet, [["group-pm-with", dummy]])).to.deep.equal([m.group]);
      expect(await narrowed(u.iago, [["dm-including", REAL]])).to.deep.equal([m.toIago]);
      expect(await narrowed(u.polonius, [["dm-including", dummy]])).to.deep.equal([m.toPolonius]);
      // A public user's dummy address names them too, as GET /users/{email} does.
      const othelloDummy = `user${u.othello.id}@${TEST_HOST}`;
      expect(await narrowed(u.hamlet, [["dm-including", othelloDummy]])).to.deep.equal([m.group]);
      expect(await narrowed(u.hamlet, [["group-pm-with", othelloDummy]])).to.deep.equal([m.group]);
    });

    it("GET /messages/matches_narrow and POST /messages/flags/narrow resolve the same way", async function () {
      const matches = (user: TestUser, narrow: object, ids: number[]) =>
        user.client.get("/messages/matches_narrow", { msg_ids: ids, narrow });
      const ids = [m.channel!, m.toHamlet!, m.other!];
      await refusedAsUnknown((address) => matches(u.hamlet, [["sender", address]], ids));
      await refusedAsUnknown((address) => matches(u.polonius, [["dm-including", address]], ids));
      const found = expectSuccess(await matches(u.hamlet, [["sender", dummy]], ids)).messages as object;
      expect(Object.keys(found).map(Number)).to.deep.equal([m.channel, m.toHamlet]);

      const flagNarrow = (address: string) =>
        u.hamlet.client.post("/messages/flags/narrow", {
          anchor: "newest",
          num_before: 100,
          num_after: 0,
          narrow: JSON.stringify([["sender", address]]),
          op: "add",
          flag: "starred",
        });
      await refusedAsUnknown(flagNarrow);
      expect(await narrowed(u.hamlet, [["is", "starred"]])).to.deep.equal([]);
      const starred = expectSuccess(await flagNarrow(dummy));
      expect(starred).to.include({ updated_count: 2 });
      expect(await narrowed(u.hamlet, [["is", "starred"]])).to.deep.equal([m.channel, m.toHamlet]);
    });
  });

  describe("register's narrow", function () {
    async function listen(user: TestUser, params: Params) {
      const state = await register(user.client, params);
      const queueId = state.queue_id as string;
      return async () =>
        (await pendingEvents(user.client, queueId))
          .filter((e: Event) => e.type === "message")
          .map((e: Event) => e.message.id as number);
    }

    it("sender: a hidden real email matches nothing, as an unknown address; the dummy and a visible one match", async function () {
      const hidden = await listen(u.hamlet, { narrow: [["sender", REAL]] });
      const unknown = await listen(u.hamlet, { narrow: [["sender", UNKNOWN]] });
      const byDummy = await listen(u.hamlet, { narrow: [["sender", dummy]] });
      const admin = await listen(u.iago, { narrow: [{ operator: "sender", operand: REAL.toUpperCase() }] });
      const guest = await listen(u.polonius, { narrow: [["sender", REAL]] });
      const id = await sendToChannel(ophelia, verona, "lament", "pansies, for thoughts");
      expect(await hidden()).to.deep.equal([]);
      expect(await unknown()).to.deep.equal([]);
      expect(await guest()).to.deep.equal([]);
      expect(await byDummy()).to.deep.equal([id]);
      expect(await admin()).to.deep.equal([id]);
    });
  });

  describe("POST /messages to emails", function () {
    it("a hidden real email is as invalid as an unknown one; the dummy and a visible one work", async function () {
      const before = await messageCount(server);
      for (const viewer of [u.hamlet, u.polonius]) {
        const res = await refusedAsUnknown((address) => postDirect(viewer, JSON.stringify([address]), "hi"));
        expectError(res, 400, `Invalid email '${REAL}'`);
      }
      await refusedAsUnknown(
        (address) => postDirect(u.desdemona, JSON.stringify([address]), "hi"),
        "yorick@zulip.test",
      );
      expect(await messageCount(server)).to.equal(before);

      const sent = async (sender: TestUser, to: string) => {
        const id = expectSuccess(await postDirect(sender, JSON.stringify([to]), "hello")).id as number;
        const body = expectSuccess(await sender.client.get(`/messages/${id}`));
        return (body.message as { display_recipient: Array<{ id: number }> }).display_recipient.map(
          (r) => r.id,
        );
      };
      expect(await sent(u.hamlet, dummy)).to.have.members([u.hamlet.id, ophelia.id]);
      expect(await sent(u.iago, REAL)).to.have.members([u.iago.id, ophelia.id]);
      // A public user's dummy address names them too, as GET /users/{email} does.
      expect(await sent(u.hamlet, `user${u.othello.id}@${TEST_HOST}`)).to.have.members([
        u.hamlet.id,
        u.othello.id,
      ]);
    });
  });

  describe("subscription principals by email", function () {
    it("a hidden real email is no such user (subscribe, unsubscribe, create); nothing changes", async function () {
      const hall = await createChannel(u.hamlet, "Hall", [u.hamlet]);
      const subscribe = (actor: TestUser, address: string) =>
        actor.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Hall" }],
          principals: [address],
        });
      for (const actor of [u.hamlet, u.prospero]) {
        expectError(await refusedAsUnknown((address) => subscribe(actor, address)), 400, "No such user");
      }
      expect(await subscriberIds(server, hall)).to.deep.equal([u.hamlet.id]);
      await refusedAsUnknown((address) =>
        u.hamlet.client.post("/channels/create", { name: "Garden", subscribers: JSON.stringify([address]) }),
      );
      expectError(
        await u.hamlet.client.get("/get_stream_id", { stream: "Garden" }),
        400,
        "Invalid channel name 'Garden'",
      );

      // The dummy address works for a member, the real email for an administrator.
      expectSuccess(await subscribe(u.hamlet, dummy));
      expect(await subscriberIds(server, hall)).to.have.members([u.hamlet.id, ophelia.id]);
      expectSuccess(
        await u.iago.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Hall" }],
          principals: JSON.stringify([REAL]),
        }),
      );
      const unsubscribe = (actor: TestUser, address: string) =>
        actor.client.delete("/users/me/subscriptions", {
          subscriptions: JSON.stringify(["Hall"]),
          principals: JSON.stringify([address]),
        });
      await refusedAsUnknown((address) => unsubscribe(u.hamlet, address));
      expect(await subscriberIds(server, hall)).to.have.members([u.hamlet.id, ophelia.id]);
      expect(expectSuccess(await unsubscribe(u.iago, REAL)).removed).to.deep.equal(["Hall"]);
      expect(await subscriberIds(server, hall)).to.deep.equal([u.hamlet.id]);
    });
  });
});

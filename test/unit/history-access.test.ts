import { expect } from "chai";
import { loadWorld } from "../../src/cache/world.js";
import type { ChannelRow } from "../../src/db/channel-rows.js";
import { canAccessChannelHistory, type ChannelWorld } from "../../src/permissions/channel-access.js";
import { hasMessageAccess } from "../../src/permissions/message-access.js";
import { expectSuccess } from "../helpers/client.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * The history rule (Zulip's can_access_stream_history) and the message rule built on it
 * (has_message_access). Narrows, topic lists, moves, flags, message events and topic
 * links all ask these two, so each refusal is covered here once.
 */
describe("history and message access rules", function () {
  let server: TestServer;
  let realm: TestRealm;
  let other: TestRealm;
  let u: Cast;
  let ids: {
    web: number;
    open: number;
    square: number;
    protected: number;
    shared: number;
    archivedShared: number;
    archivedOpen: number;
    foreign: number;
  };

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    other = await server.factory.realm(undefined, "Elsewhere");
    u = cast(realm);
    await server.app.knex("realms").where({ id: realm.id }).update({ enable_spectator_access: true });
    server.app.realms.invalidate(realm.id);
    const shared = { invite_only: true, history_public_to_subscribers: true };
    ids = {
      web: await createChannel(u.desdemona, "Web", [u.desdemona], { is_web_public: true }),
      open: await createChannel(u.othello, "Open", [u.othello, u.polonius]),
      square: await createChannel(u.othello, "Square", [u.othello]),
      protected: await createChannel(u.othello, "Protected", [u.othello, u.polonius], { invite_only: true }),
      shared: await createChannel(u.othello, "Shared", [u.othello, u.polonius], {
        ...shared,
        can_subscribe_group: { direct_members: [u.cordelia.id], direct_subgroups: [] },
      }),
      archivedShared: await createChannel(u.othello, "Attic", [u.othello], shared),
      archivedOpen: await createChannel(u.othello, "Cellar", [u.othello]),
      foreign: await createChannel(cast(other).othello, "Abroad", [cast(other).othello]),
    };
    for (const id of [ids.archivedShared, ids.archivedOpen]) {
      expectSuccess(await u.iago.client.delete(`/streams/${id}`));
    }
  });
  after(async function () {
    await server.close();
  });

  const world = (): Promise<ChannelWorld> => loadWorld(server.app, server.app.knex, realm.id);

  /** The rule for `user` on the channel, or on a copy of its row with `changes` applied. */
  async function history(user: TestUser, channelId: number, changes: Partial<ChannelRow> = {}) {
    const w = await world();
    const row =
      w.channels.channel(channelId) ?? (await server.app.knex("streams").where({ id: channelId }).first());
    return canAccessChannelHistory(w, w.realm.user(user.id)!, { ...row, ...changes });
  }

  it("opens web-public history to everyone, guests included", async function () {
    expect(await history(u.polonius, ids.web)).to.equal(true);
    expect(await history(u.hamlet, ids.web)).to.equal(true);
  });

  it("opens public history to every member, and to guests only when subscribed", async function () {
    expect(await history(u.hamlet, ids.open)).to.equal(true);
    expect(await history(u.polonius, ids.open)).to.equal(true);
    expect(await history(u.polonius, ids.square)).to.equal(false);
    // A public channel's history is the realm's whatever its flag says (Zulip's
    // is_history_realm_public); the narrow's former rule read the flag and refused here.
    expect(await history(u.hamlet, ids.open, { history_public_to_subscribers: 0 })).to.equal(true);
    expect(await history(u.polonius, ids.open, { history_public_to_subscribers: 0 })).to.equal(false);
  });

  it("closes protected history to everyone, subscribers and administrators included", async function () {
    expect(await history(u.othello, ids.protected)).to.equal(false);
    expect(await history(u.polonius, ids.protected)).to.equal(false);
    expect(await history(u.iago, ids.protected)).to.equal(false);
    expect(await history(u.hamlet, ids.protected)).to.equal(false);
  });

  it("opens shared private history to those with content access only", async function () {
    expect(await history(u.othello, ids.shared)).to.equal(true);
    expect(await history(u.polonius, ids.shared)).to.equal(true);
    // can_subscribe_group grants content access, hence history.
    expect(await history(u.cordelia, ids.shared)).to.equal(true);
    // Not subscribed: members, administrators (metadata only) and the owner are refused.
    expect(await history(u.hamlet, ids.shared)).to.equal(false);
    expect(await history(u.iago, ids.shared)).to.equal(false);
    expect(await history(u.desdemona, ids.shared)).to.equal(false);
  });

  it("closes an archived channel's shared private history, but not its public one", async function () {
    expect(await history(u.othello, ids.archivedShared)).to.equal(false);
    expect(await history(u.othello, ids.archivedShared, { is_archived: 0 })).to.equal(true);
    expect(await history(u.hamlet, ids.archivedOpen)).to.equal(true);
  });

  it("never opens another realm's channel", async function () {
    expect(await history(u.hamlet, ids.foreign)).to.equal(false);
    expect(await history(u.hamlet, ids.foreign, { is_web_public: 1 })).to.equal(false);
  });

  it("lets users read what they received, and otherwise what the history rule opens", async function () {
    const w = await world();
    const user = (t: TestUser) => w.realm.user(t.id)!;
    const direct = { stream_id: null };
    expect(hasMessageAccess(w, user(u.hamlet), direct, true)).to.equal(true);
    expect(hasMessageAccess(w, user(u.hamlet), direct, false)).to.equal(false);
    expect(hasMessageAccess(w, user(u.hamlet), { stream_id: ids.open }, false)).to.equal(true);
    expect(hasMessageAccess(w, user(u.othello), { stream_id: ids.protected }, false)).to.equal(false);
    expect(hasMessageAccess(w, user(u.othello), { stream_id: ids.protected }, true)).to.equal(true);
    expect(hasMessageAccess(w, user(u.hamlet), { stream_id: ids.shared }, false)).to.equal(false);
    expect(hasMessageAccess(w, user(u.hamlet), { stream_id: 999999 }, false)).to.equal(false);
  });
});

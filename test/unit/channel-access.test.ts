import { expect } from "chai";
import { sendChannelAccessChanges } from "../../src/actions/channels.js";
import { loadWorld } from "../../src/cache/world.js";
import type { Tx } from "../../src/db/tx.js";
import type { ChatEvent, EventRecipients } from "../../src/wire/events.js";
import {
  canAccessChannelContent,
  canAccessChannelMetadata,
  canAdministerChannel,
  canSeeSubscribers,
  channelViewerIds,
  type ChannelWorld,
} from "../../src/permissions/channel-access.js";
import { ROLE } from "../../src/world/roles.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("channel access rules", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let ids: { open: number; closed: number; web: number; granted: number };

  const world = (): Promise<ChannelWorld> => loadWorld(server.app, server.app.knex, realm.id);

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await server.app.knex("realms").where({ id: realm.id }).update({ enable_spectator_access: true });
    server.app.realms.invalidate(realm.id);
    ids = {
      open: await createChannel(u.othello, "Open", [u.othello, u.polonius]),
      closed: await createChannel(u.othello, "Closed", [u.othello, u.polonius], { invite_only: true }),
      web: await createChannel(u.desdemona, "Web", [u.desdemona], { is_web_public: true }),
      granted: await createChannel(u.othello, "Granted", [u.othello], {
        invite_only: true,
        can_subscribe_group: { direct_members: [u.cordelia.id], direct_subgroups: [] },
        can_administer_channel_group: {
          direct_members: [u.prospero.id, u.polonius.id],
          direct_subgroups: [],
        },
      }),
    };
  });
  after(async function () {
    await server.close();
  });

  async function evaluate(
    rule: (
      w: ChannelWorld,
      user: ReturnType<ChannelWorld["realm"]["user"]> & object,
      channelId: number,
    ) => boolean,
    user: TestUser,
    channelId: number,
  ) {
    const w = await world();
    return rule(w, w.realm.user(user.id)!, channelId);
  }
  const metadata = (user: TestUser, id: number) =>
    evaluate((w, x, c) => canAccessChannelMetadata(w, x, w.channels.channel(c)!), user, id);
  const content = (user: TestUser, id: number) =>
    evaluate((w, x, c) => canAccessChannelContent(w, x, w.channels.channel(c)!), user, id);

  it("gives metadata and content access as Zulip does", async function () {
    // Public: every member; guests only when subscribed.
    expect(await content(u.hamlet, ids.open)).to.equal(true);
    expect(await content(u.polonius, ids.open)).to.equal(true);
    expect(await metadata(u.polonius, ids.web)).to.equal(true);
    // Private: subscribers; administrators see metadata only.
    expect(await metadata(u.hamlet, ids.closed)).to.equal(false);
    expect(await metadata(u.iago, ids.closed)).to.equal(true);
    expect(await content(u.iago, ids.closed)).to.equal(false);
    expect(await content(u.polonius, ids.closed)).to.equal(true);
    // Groups: can_subscribe_group gives content; can_administer_channel_group metadata only; never guests.
    expect(await content(u.cordelia, ids.granted)).to.equal(true);
    expect(await metadata(u.prospero, ids.granted)).to.equal(true);
    expect(await content(u.prospero, ids.granted)).to.equal(false);
    expect(await metadata(u.polonius, ids.granted)).to.equal(false);
  });

  it("decides administration and subscriber visibility", async function () {
    const w = await world();
    const user = (t: TestUser) => w.realm.user(t.id)!;
    const granted = w.channels.channel(ids.granted)!;
    expect(canAdministerChannel(w.realm, user(u.prospero), granted)).to.equal(true);
    expect(canAdministerChannel(w.realm, user(u.iago), granted)).to.equal(true);
    expect(canAdministerChannel(w.realm, user(u.polonius), granted)).to.equal(false);
    expect(canAdministerChannel(w.realm, user(u.hamlet), granted)).to.equal(false);
    expect(canSeeSubscribers(w, user(u.prospero), granted)).to.equal(true);
    expect(canSeeSubscribers(w, user(u.polonius), w.channels.channel(ids.open)!)).to.equal(true);
    expect(canSeeSubscribers(w, user(u.hamlet), w.channels.channel(ids.closed)!)).to.equal(false);
  });

  it("lists a channel's viewers: the recipients of its events", async function () {
    const w = await world();
    const viewers = (id: number) =>
      [...channelViewerIds(w.realm, w.channels.channel(id)!, w.channels.subscriberIds(id))].sort(
        (a, b) => a - b,
      );
    const everyone = Object.values(u)
      .map((x) => x.id)
      .sort((a, b) => a - b);
    expect(viewers(ids.web)).to.deep.equal(everyone);
    expect(viewers(ids.open)).to.deep.equal(everyone);
    expect(viewers(ids.closed)).to.deep.equal(
      [u.desdemona.id, u.iago.id, u.othello.id, u.polonius.id].sort((a, b) => a - b),
    );
    expect(viewers(ids.granted)).to.deep.equal(
      [u.desdemona.id, u.iago.id, u.othello.id, u.cordelia.id, u.prospero.id].sort((a, b) => a - b),
    );
  });

  it("tells users who gain or lose sight of channels after a role change", async function () {
    const before = await world();
    await server.app.knex("users").where({ id: u.hamlet.id }).update({ role: ROLE.ADMINISTRATOR });
    const admins = before.realm.systemGroupId("role:administrators");
    await server.app.knex("user_group_members").insert({ group_id: admins, user_id: u.hamlet.id });
    await server.app.knex("users").where({ id: u.iago.id }).update({ role: ROLE.MEMBER });
    await server.app.knex("user_group_members").where({ group_id: admins, user_id: u.iago.id }).delete();
    server.app.realms.invalidate(realm.id);
    const after = await world();
    // Read as plain records: the summary picks fields of several event types.
    const sent: Array<{ event: Record<string, unknown>; to: number[] }> = [];
    const tx = {
      sendEventOnCommit: (_realmId: number, event: ChatEvent, to: EventRecipients) =>
        void sent.push({ event: { ...event }, to: [...(to as Iterable<number>)] }),
    } as unknown as Tx;
    sendChannelAccessChanges(tx, before.channels, before.realm, after.realm);
    const summary = sent.map(({ event, to }) => [
      event.type,
      event.op,
      to,
      event.stream_ids ?? (event.streams as Array<{ stream_id: number }>)[0]!.stream_id,
    ]);
    expect(summary).to.deep.include.members([
      ["stream", "create", [u.hamlet.id], ids.closed],
      ["subscription", "peer_add", [u.hamlet.id], [ids.closed]],
      ["stream", "create", [u.hamlet.id], ids.granted],
      ["stream", "delete", [u.iago.id], [ids.closed, ids.granted]],
    ]);
    expect(sent).to.have.lengthOf(5);
  });
});

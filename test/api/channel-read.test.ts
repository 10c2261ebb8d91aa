import { expect } from "chai";
import { doCreateUser } from "../../src/actions/user-create.js";
import { ROLE } from "../../src/world/roles.js";
import { cast, createChannel, deactivateUser, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type Dict = Record<string, unknown> & { name: string; stream_id: number };

describe("reading channels and subscriptions", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let ids: { denmark: number; secret: number; web: number; norway: number };

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await setRealmFields(server, realm, { enable_spectator_access: true });
    ids = {
      denmark: await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.polonius], {
        description: "**Something** is rotten",
      }),
      secret: await createChannel(u.othello, "Secret", [u.othello, u.cordelia], { invite_only: true }),
      web: await createChannel(u.desdemona, "Web", [u.desdemona], { is_web_public: true }),
      norway: await createChannel(u.prospero, "Norway", [u.prospero]),
    };
  });
  after(async function () {
    await server.close();
  });

  const names = (list: Dict[]) => list.map((d) => d.name);
  const subscriptions = async (user: TestUser, include?: string | boolean) =>
    expectSuccess(
      await user.client.get(
        "/users/me/subscriptions",
        include === undefined ? {} : { include_subscribers: include },
      ),
    ).subscriptions as Dict[];

  describe("GET /users/me/subscriptions", function () {
    it("lists the caller's subscriptions, sorted by name, without subscribers by default", async function () {
      const subs = await subscriptions(u.othello);
      expect(names(subs)).to.deep.equal(["Denmark", "Secret"]);
      const denmark = subs[0]!;
      expect(denmark).not.to.have.property("subscribers");
      expect(denmark).to.include({
        stream_id: ids.denmark,
        description: "**Something** is rotten",
        rendered_description: "<p><strong>Something</strong> is rotten</p>",
        invite_only: false,
        is_web_public: false,
        is_archived: false,
        is_muted: false,
        in_home_view: true,
        pin_to_top: false,
        desktop_notifications: null,
        audible_notifications: null,
        push_notifications: null,
        email_notifications: null,
        wildcard_mentions_notify: null,
        history_public_to_subscribers: true,
        subscriber_count: 3,
        creator_id: u.hamlet.id,
        folder_id: null,
        message_retention_days: null,
        stream_weekly_traffic: null,
        topics_policy: "inherit",
        is_recently_active: true,
      });
      expect(denmark.color).to.match(/^#[0-9a-f]{6}$/);
      expect(denmark.first_message_id).to.be.a("number");
      expect(denmark.date_created).to.be.a("number");
    });

    it("includes full subscriber lists with include_subscribers=true", async function () {
      const subs = await subscriptions(u.othello, "true");
      expect(subs.find((s) => s.name === "Secret")!.subscribers).to.deep.equal(
        [u.othello.id, u.cordelia.id].sort((a, b) => a - b),
      );
      expect((await subscriptions(u.othello, "false"))[0]).not.to.have.property("subscribers");
      expectError(
        await u.othello.client.get("/users/me/subscriptions", { include_subscribers: "maybe" }),
        400,
        "Invalid include_subscribers",
      );
    });

    it("with include_subscribers=partial, sends full lists below 250 and partial lists (bots, recent users) above", async function () {
      this.timeout(60_000);
      const own = await server.factory.realm({ hamlet: ROLE.MEMBER });
      const hamlet = own.users.hamlet!;
      const crowdId = await createChannel(hamlet, "Crowd");
      const smallId = await createChannel(hamlet, "Small");
      // 260 people who joined long ago, one bot, one recently present.
      const old = Math.floor(server.clock.nowMs() / 1000) - 100 * 86400;
      const crowd = await server.app.db.transaction(async (tx) => {
        const users = [];
        for (let i = 0; i < 260; i++) {
          users.push(
            await doCreateUser(server.app, tx, {
              realmId: own.id,
              email: `extra${i}@zulip.test`,
              fullName: `Extra ${i}`,
            }),
          );
        }
        return users;
      });
      await server.app
        .knex("users")
        .whereIn(
          "id",
          crowd.map((c) => c.id),
        )
        .update({ date_joined: old });
      await server.app.knex("users").where({ id: hamlet.id }).update({ date_joined: old });
      const bot = crowd[0]!;
      await server.app.knex("users").where({ id: bot.id }).update({ is_bot: true, bot_type: 1 });
      const present = crowd[1]!;
      await server.app.knex("user_presence").insert({
        user_id: present.id,
        last_active_time: Math.floor(server.clock.nowMs() / 1000) - 3600,
      });
      server.app.realms.invalidate(own.id);
      expectSuccess(
        await hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Crowd" }],
          principals: crowd.map((c) => c.id),
          send_new_subscription_messages: false,
        }),
      );
      expectSuccess(
        await hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Small" }],
          principals: [present.id],
        }),
      );
      const subs = await subscriptions(hamlet, "partial");
      const crowdSub = subs.find((s) => s.stream_id === crowdId)!;
      expect(crowdSub).not.to.have.property("subscribers");
      expect(crowdSub.partial_subscribers).to.deep.equal([bot.id, present.id].sort((a, b) => a - b));
      expect(crowdSub.subscriber_count).to.equal(261);
      const small = subs.find((s) => s.stream_id === smallId)!;
      expect(small.subscribers).to.deep.equal([hamlet.id, present.id].sort((a, b) => a - b));
      expect(small).not.to.have.property("partial_subscribers");
      // With "true", everything in full.
      const full = (await subscriptions(hamlet, "true")).find((s) => s.stream_id === crowdId)!;
      expect(full.subscribers).to.have.lengthOf(261);
    });
  });

  describe("GET /streams", function () {
    const streams = async (user: TestUser, params: Record<string, boolean> = {}) =>
      names(expectSuccess(await user.client.get("/streams", params)).streams as Dict[]);

    it("lists public and subscribed channels by default", async function () {
      expect(await streams(u.hamlet)).to.deep.equal(["Denmark", "Norway", "Web"]);
      expect(await streams(u.cordelia)).to.deep.equal(["Denmark", "Norway", "Secret", "Web"]);
    });

    it("honours the source flags", async function () {
      expect(await streams(u.hamlet, { include_public: false })).to.deep.equal(["Denmark"]);
      expect(await streams(u.hamlet, { include_public: false, include_subscribed: false })).to.deep.equal([]);
      expect(
        await streams(u.hamlet, {
          include_public: false,
          include_subscribed: false,
          include_web_public: true,
        }),
      ).to.deep.equal(["Web"]);
      expect(await streams(u.hamlet, { include_all: true })).to.deep.equal(["Denmark", "Norway", "Web"]);
      expect(await streams(u.iago, { include_all: true })).to.deep.equal([
        "Denmark",
        "Norway",
        "Secret",
        "Web",
      ]);
      expect(await streams(u.iago, { include_all_active: true })).to.include("Secret");
      expect(await streams(u.iago, { include_can_access_content: true })).to.deep.equal([
        "Denmark",
        "Norway",
        "Web",
      ]);
    });

    it("marks default channels with include_default", async function () {
      expectSuccess(await u.iago.client.post("/default_streams", { stream_id: ids.norway }));
      const list = expectSuccess(await u.hamlet.client.get("/streams", { include_default: true }))
        .streams as Dict[];
      expect(list.map((s) => [s.name, s.is_default])).to.deep.equal([
        ["Denmark", false],
        ["Norway", true],
        ["Web", false],
      ]);
      expect(
        (expectSuccess(await u.hamlet.client.get("/streams")).streams as Dict[])[0],
      ).not.to.have.property("is_default");
      expectSuccess(await u.iago.client.delete("/default_streams", { stream_id: ids.norway }));
    });

    it("shows guests only web-public channels and their own", async function () {
      expect(await streams(u.polonius)).to.deep.equal(["Denmark"]);
      expect(await streams(u.polonius, { include_web_public: true })).to.deep.equal(["Denmark", "Web"]);
      expect(await streams(u.polonius, { include_all: true })).to.deep.equal(["Denmark", "Web"]);
    });
  });

  describe("single-channel lookups", function () {
    it("GET /streams/{id} gives the channel to those who may see it, else Invalid channel ID", async function () {
      const stream = expectSuccess(await u.iago.client.get(`/streams/${ids.secret}`)).stream as Dict;
      expect(stream).to.include({ name: "Secret", invite_only: true, subscriber_count: 2 });
      expect(stream).not.to.have.property("color");
      expectError(await u.hamlet.client.get(`/streams/${ids.secret}`), 400, "Invalid channel ID");
      expectError(await u.hamlet.client.get("/streams/999999"), 400, "Invalid channel ID");
      expectError(await u.polonius.client.get(`/streams/${ids.norway}`), 400, "Invalid channel ID");
      expectSuccess(await u.polonius.client.get(`/streams/${ids.web}`));
    });

    it("GET /get_stream_id needs content access", async function () {
      expect(
        expectSuccess(await u.hamlet.client.get("/get_stream_id", { stream: "denmark" })).stream_id,
      ).to.equal(ids.denmark);
      expectError(
        await u.hamlet.client.get("/get_stream_id", { stream: "Secret" }),
        400,
        "Invalid channel name 'Secret'",
      );
      expectError(
        await u.iago.client.get("/get_stream_id", { stream: "Secret" }),
        400,
        "Invalid channel name 'Secret'",
      );
      expectError(
        await u.hamlet.client.get("/get_stream_id", { stream: "nonexistent" }),
        400,
        "Invalid channel name 'nonexistent'",
      );
      expectError(
        await u.hamlet.client.get("/get_stream_id"),
        400,
        "Missing 'stream' argument",
        "REQUEST_VARIABLE_MISSING",
      );
    });

    it("GET /streams/{id}/members follows who may see subscribers", async function () {
      const members = async (user: TestUser, id: number) =>
        expectSuccess(await user.client.get(`/streams/${id}/members`)).subscribers as number[];
      expect(await members(u.hamlet, ids.denmark)).to.deep.equal(
        [u.hamlet.id, u.othello.id, u.polonius.id].sort((a, b) => a - b),
      );
      expect(await members(u.cordelia, ids.secret)).to.have.lengthOf(2);
      expect(await members(u.iago, ids.secret)).to.have.lengthOf(2);
      expectError(await u.hamlet.client.get(`/streams/${ids.secret}/members`), 400, "Invalid channel ID");
      expect(await members(u.polonius, ids.denmark)).to.have.lengthOf(3);
      expect(await members(u.polonius, ids.web)).to.deep.equal([u.desdemona.id]);
      expectError(await u.polonius.client.get(`/streams/${ids.norway}/members`), 400, "Invalid channel ID");
    });

    it("GET /users/{user_id}/subscriptions/{stream_id} tells whether a user is subscribed", async function () {
      const status = async (viewer: TestUser, user: TestUser, id: number) =>
        expectSuccess(await viewer.client.get(`/users/${user.id}/subscriptions/${id}`))
          .is_subscribed as boolean;
      expect(await status(u.hamlet, u.othello, ids.denmark)).to.equal(true);
      expect(await status(u.hamlet, u.cordelia, ids.denmark)).to.equal(false);
      expect(await status(u.iago, u.cordelia, ids.secret)).to.equal(true);
      expectError(
        await u.hamlet.client.get(`/users/${u.cordelia.id}/subscriptions/${ids.secret}`),
        400,
        "Invalid channel ID",
      );
      expectError(
        await u.hamlet.client.get(`/users/999999/subscriptions/${ids.denmark}`),
        400,
        "No such user",
      );
      const own = await server.factory.realm();
      const gone = cast(own);
      const id = await createChannel(gone.othello, "Departed", [gone.othello, gone.cordelia]);
      await deactivateUser(server, own, gone.cordelia);
      expectError(
        await gone.othello.client.get(`/users/${gone.cordelia.id}/subscriptions/${id}`),
        400,
        "User is deactivated",
      );
    });
  });

  describe("private-channel visibility", function () {
    it("hides a private channel and its subscribers from a member who is not subscribed", async function () {
      const state = await register(u.hamlet.client, {
        fetch_event_types: ["subscription", "stream"],
        include_subscribers: true,
      });
      const everything = [
        ...(state.subscriptions as Dict[]),
        ...(state.unsubscribed as Dict[]),
        ...(state.never_subscribed as Dict[]),
        ...(state.streams as Dict[]),
      ];
      expect(everything.map((d) => d.stream_id)).not.to.include(ids.secret);
      const sub = (await subscriptions(u.hamlet, true)).map((s) => s.stream_id);
      expect(sub).not.to.include(ids.secret);
      expectError(await u.hamlet.client.get(`/streams/${ids.secret}/members`), 400, "Invalid channel ID");
      expectError(await u.hamlet.client.get(`/streams/${ids.secret}`), 400, "Invalid channel ID");
    });

    it("shows administrators the private channel and its subscribers without content", async function () {
      const state = await register(u.iago.client, {
        fetch_event_types: ["subscription"],
        include_subscribers: true,
      });
      const secret = (state.never_subscribed as Dict[]).find((d) => d.stream_id === ids.secret)!;
      expect(secret.subscribers).to.deep.equal([u.othello.id, u.cordelia.id].sort((a, b) => a - b));
    });

    it("shows a guest only the channels it is subscribed to (and web-public ones)", async function () {
      const state = await register(u.polonius.client, {
        fetch_event_types: ["subscription", "stream"],
        include_subscribers: true,
      });
      expect(names(state.subscriptions as Dict[])).to.deep.equal(["Denmark"]);
      expect(names(state.never_subscribed as Dict[])).to.deep.equal(["Web"]);
      expect(state.unsubscribed).to.deep.equal([]);
      expect(names(state.streams as Dict[])).to.deep.equal(["Denmark", "Web"]);
    });

    it("lists in never_subscribed the public channels, and unsubscribed the past ones", async function () {
      const own = await server.factory.realm();
      const { hamlet, othello } = cast(own);
      await createChannel(othello, "Once", [othello, hamlet]);
      await createChannel(othello, "Never", [othello]);
      expectSuccess(await hamlet.client.delete("/users/me/subscriptions", { subscriptions: ["Once"] }));
      const state = await register(hamlet.client, { fetch_event_types: ["subscription"] });
      expect(names(state.unsubscribed as Dict[])).to.deep.equal(["Once"]);
      expect(names(state.never_subscribed as Dict[])).to.deep.equal(["Never"]);
      expect((state.unsubscribed as Dict[])[0]).to.have.property("color");
      expect((state.never_subscribed as Dict[])[0]).not.to.have.property("color");
    });
  });

  describe("register state", function () {
    it("reports the channel limits in the realm state", async function () {
      const state = await register(u.hamlet.client, { fetch_event_types: ["realm"] });
      expect(state).to.include({
        max_stream_name_length: 60,
        max_stream_description_length: 1024,
        max_channel_folder_name_length: 60,
        max_channel_folder_description_length: 1024,
      });
    });

    it("gives default channels to members only", async function () {
      expectSuccess(await u.iago.client.post("/default_streams", { stream_id: ids.denmark }));
      const member = await register(u.hamlet.client, { fetch_event_types: ["default_streams"] });
      expect(member.realm_default_streams).to.deep.equal([ids.denmark]);
      const guest = await register(u.polonius.client, { fetch_event_types: ["default_streams"] });
      expect(guest.realm_default_streams).to.deep.equal([]);
      expectSuccess(await u.iago.client.delete("/default_streams", { stream_id: ids.denmark }));
    });

    it("lists the system bots among cross_realm_bots, not among the realm's users", async function () {
      const state = await register(u.hamlet.client, { fetch_event_types: ["realm_user"] });
      const bots = state.cross_realm_bots as Array<{
        full_name: string;
        is_system_bot: boolean;
        is_bot: boolean;
      }>;
      expect(bots.map((b) => [b.full_name, b.is_system_bot, b.is_bot])).to.deep.equal([
        ["Notification Bot", true, true],
        ["Welcome Bot", true, true],
      ]);
      const people = (state.realm_users as Array<{ full_name: string }>).map((p) => p.full_name);
      expect(people).not.to.include("Notification Bot");
      expect(people).not.to.include("Welcome Bot");
    });
  });
});

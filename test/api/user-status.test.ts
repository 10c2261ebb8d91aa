import { expect } from "chai";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("user status", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    const u = (name: string) => realm.users[name]!;
    const setStatus = (name: string, params: Params) => u(name).client.post("/users/me/status", params);
    const statusOf = async (name: string) =>
      expectSuccess(await u("othello").client.get(`/users/${u(name).id}/status`)).status as Record<
        string,
        unknown
      >;
    return { realm, u, setStatus, statusOf };
  };

  it("sets text and emoji; GET /users/{id}/status shows only what is set", async function () {
    const { setStatus, statusOf } = await fresh();
    expect(await statusOf("hamlet")).to.deep.equal({});
    expectSuccess(await setStatus("hamlet", { status_text: "  to be or not  " }));
    expect(await statusOf("hamlet")).to.deep.equal({ status_text: "to be or not" });
    // Zulip's names map to Unicode code points.
    expectSuccess(await setStatus("hamlet", { emoji_name: "smile" }));
    expect(await statusOf("hamlet")).to.deep.equal({
      status_text: "to be or not",
      emoji_name: "smile",
      emoji_code: "1f604",
      reaction_type: "unicode_emoji",
    });
    expectSuccess(
      await setStatus("hamlet", { emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" }),
    );
    expect(await statusOf("hamlet")).to.include({ emoji_name: "car", emoji_code: "1f697" });
    expectSuccess(
      await setStatus("hamlet", {
        emoji_name: "zulip",
        reaction_type: "zulip_extra_emoji",
        emoji_code: "zulip",
      }),
    );
    expect(await statusOf("hamlet")).to.include({ emoji_name: "zulip", reaction_type: "zulip_extra_emoji" });
    // Clearing: "" for the text, "" for the emoji.
    expectSuccess(await setStatus("hamlet", { status_text: "" }));
    expectSuccess(await setStatus("hamlet", { emoji_name: "" }));
    expect(await statusOf("hamlet")).to.deep.equal({});
  });

  it("counts the 60-character limit in code points", async function () {
    const { setStatus, statusOf } = await fresh();
    expectSuccess(await setStatus("hamlet", { status_text: "😀".repeat(60) }));
    expect(await statusOf("hamlet")).to.deep.equal({ status_text: "😀".repeat(60) });
    expectError(
      await setStatus("hamlet", { status_text: "x".repeat(61) }),
      400,
      "status_text is too long (limit: 60 characters)",
    );
    expect(await statusOf("hamlet")).to.deep.equal({ status_text: "😀".repeat(60) });
  });

  it("refuses every bad request of SPEC's list, changing nothing", async function () {
    const { realm, setStatus, statusOf } = await fresh();
    expectSuccess(await setStatus("hamlet", { status_text: "away", emoji_name: "smile" }));
    const before = await statusOf("hamlet");
    expectError(await setStatus("hamlet", {}), 400, "Client did not pass any new values.");
    expectError(
      await setStatus("hamlet", { emoji_code: "1f604" }),
      400,
      "Client did not pass any new values.",
    );
    expectError(
      await setStatus("hamlet", { status_text: "x", emoji_code: "1f604" }),
      400,
      "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
    );
    expectError(
      await setStatus("hamlet", { status_text: "x", reaction_type: "unicode_emoji" }),
      400,
      "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
    );
    expectError(
      await setStatus("hamlet", { emoji_name: "no_such_emoji" }),
      400,
      "Emoji 'no_such_emoji' does not exist",
    );
    expectError(
      await setStatus("hamlet", { emoji_name: "car", emoji_code: "1f604", reaction_type: "unicode_emoji" }),
      400,
      "Invalid emoji name.",
    );
    expectError(
      await setStatus("hamlet", { emoji_name: "smile", emoji_code: "zzzz", reaction_type: "unicode_emoji" }),
      400,
      "Invalid emoji code.",
    );
    expectError(
      await setStatus("hamlet", { emoji_name: "parrot", emoji_code: "999", reaction_type: "realm_emoji" }),
      400,
      "Invalid custom emoji.",
    );
    expectError(
      await setStatus("hamlet", { emoji_name: "smile", emoji_code: "1f604", reaction_type: "sticker" }),
      400,
      "Invalid emoji type.",
    );
    expectError(await setStatus("hamlet", { away: "maybe" }), 400, "away is not a boolean");
    expect(await statusOf("hamlet")).to.deep.equal(before);
    const bot = await server.factory.user(realm.id, "fool-bot", 400, {
      isBot: true,
      botOwnerId: realm.users.hamlet!.id,
    });
    expectError(
      await bot.client.post("/users/me/status", { status_text: "beep" }),
      400,
      "This endpoint does not accept bot requests.",
    );
  });

  it("keeps away as the deprecated alias of presence_enabled", async function () {
    const { realm, u, setStatus, statusOf } = await fresh();
    const legacy = await register(u("hamlet").client, {
      event_types: ["user_settings", "update_global_notifications"],
    });
    const modern = await register(u("hamlet").client, {
      event_types: ["user_settings", "update_global_notifications"],
      client_capabilities: { user_settings_object: true },
    });
    expectSuccess(await setStatus("hamlet", { away: true }));
    expect(await statusOf("hamlet")).to.deep.equal({ away: true });
    expect((await server.factory.row(realm.id, u("hamlet").id)).presence_enabled).to.be.oneOf([0, false]);
    const strip = (events: Array<Record<string, unknown>>) => events.map(({ id: _id, ...e }) => e);
    expect(strip(await pendingEvents(u("hamlet").client, legacy.queue_id))).to.deep.equal([
      { type: "user_settings", op: "update", property: "presence_enabled", value: false },
      {
        type: "update_global_notifications",
        user: "hamlet@zulip.test",
        notification_name: "presence_enabled",
        setting: false,
      },
    ]);
    expect(strip(await pendingEvents(u("hamlet").client, modern.queue_id))).to.deep.equal([
      { type: "user_settings", op: "update", property: "presence_enabled", value: false },
    ]);
    expectSuccess(await setStatus("hamlet", { away: false }));
    expect(await statusOf("hamlet")).to.deep.equal({});
    expect((await server.factory.row(realm.id, u("hamlet").id)).presence_enabled).to.be.oneOf([1, true]);
  });

  it("PATCH /settings presence_enabled shows as away to everyone who lists the user's status", async function () {
    const { u, setStatus, statusOf } = await fresh();
    const { queue_id } = await register(u("othello").client, { event_types: ["user_status"] });
    const events = await verifyRegisterParity(u("iago").client, {}, async () => {
      expectSuccess(await setStatus("hamlet", { status_text: "in the castle" }));
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: false }));
      // Cordelia has no status: user_status does not list her, on or off.
      expectSuccess(await u("cordelia").client.patch("/settings", { presence_enabled: false }));
    });
    expect(await statusOf("hamlet")).to.deep.equal({ away: true, status_text: "in the castle" });
    expect(await statusOf("cordelia")).to.deep.equal({});
    const hamlet = u("hamlet").id;
    const told = (await pendingEvents(u("othello").client, queue_id)).map(({ id: _id, ...e }) => e);
    expect(told).to.deep.equal([
      { type: "user_status", user_id: hamlet, status_text: "in the castle" },
      { type: "user_status", user_id: hamlet, away: true },
    ]);
    expect(events.filter((e) => e.type === "user_status")).to.have.lengthOf(2);
    await verifyRegisterParity(u("iago").client, {}, async () => {
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: true }));
    });
    expect(await statusOf("hamlet")).to.deep.equal({ status_text: "in the castle" });
  });

  it("GET /users/{id}/status refuses unknown users", async function () {
    const { u } = await fresh();
    expectError(await u("hamlet").client.get("/users/999999/status"), 400, "No such user");
    expectError(await u("hamlet").client.get("/users/hamlet/status"), 400, "Invalid user_id");
  });

  it("tells everyone, in Zulip's shape; state plus events equals a fresh register", async function () {
    const { u, setStatus } = await fresh();
    const { queue_id } = await register(u("polonius").client, { event_types: ["user_status"] });
    const events = await verifyRegisterParity(u("othello").client, {}, async () => {
      expectSuccess(await setStatus("hamlet", { status_text: "in the castle" }));
      expectSuccess(await setStatus("hamlet", { emoji_name: "smile" }));
      expectSuccess(await setStatus("cordelia", { away: true, status_text: "sulking", emoji_name: "car" }));
      expectSuccess(await setStatus("hamlet", { status_text: "" }));
      expectSuccess(await setStatus("hamlet", { emoji_name: "" }));
      expectSuccess(await setStatus("cordelia", { away: false }));
    });
    const guestEvents = (await pendingEvents(u("polonius").client, queue_id)).map(({ id: _id, ...e }) => e);
    const hamlet = u("hamlet").id;
    const cordelia = u("cordelia").id;
    expect(guestEvents).to.deep.equal([
      { type: "user_status", user_id: hamlet, status_text: "in the castle" },
      {
        type: "user_status",
        user_id: hamlet,
        emoji_name: "smile",
        emoji_code: "1f604",
        reaction_type: "unicode_emoji",
      },
      {
        type: "user_status",
        user_id: cordelia,
        away: true,
        status_text: "sulking",
        emoji_name: "car",
        emoji_code: "1f697",
        reaction_type: "unicode_emoji",
      },
      { type: "user_status", user_id: hamlet, status_text: "" },
      {
        type: "user_status",
        user_id: hamlet,
        emoji_name: "",
        emoji_code: "",
        reaction_type: "unicode_emoji",
      },
      { type: "user_status", user_id: cordelia, away: false },
    ]);
    expect(events.filter((e) => e.type === "user_status")).to.have.lengthOf(6);
    const state = await register(u("othello").client, { fetch_event_types: ["user_status"] });
    expect(state.user_status).to.deep.equal({
      [cordelia]: {
        status_text: "sulking",
        emoji_name: "car",
        emoji_code: "1f697",
        reaction_type: "unicode_emoji",
      },
    });
  });
});

describe("user status: POST /users/{user_id}/status (administrators)", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    const u = (name: string) => realm.users[name]!;
    const setFor = (actor: string, target: number, params: Params) =>
      u(actor).client.post(`/users/${target}/status`, params);
    const statusOf = async (id: number) =>
      expectSuccess(await u("othello").client.get(`/users/${id}/status`)).status as Record<string, unknown>;
    return { realm, u, setFor, statusOf };
  };

  it("sets another user's text and emoji; everyone is told; state plus events equals a fresh register", async function () {
    const { u, setFor, statusOf } = await fresh();
    const hamlet = u("hamlet").id;
    const { queue_id } = await register(u("polonius").client, { event_types: ["user_status"] });
    await verifyRegisterParity(u("othello").client, {}, async () => {
      expectSuccess(await setFor("iago", hamlet, { status_text: " on leave ", emoji_name: "car" }));
      expectSuccess(await setFor("desdemona", hamlet, { status_text: "" }));
    });
    expect(await statusOf(hamlet)).to.deep.equal({
      emoji_name: "car",
      emoji_code: "1f697",
      reaction_type: "unicode_emoji",
    });
    const told = (await pendingEvents(u("polonius").client, queue_id)).map(({ id: _id, ...e }) => e);
    expect(told).to.deep.equal([
      {
        type: "user_status",
        user_id: hamlet,
        status_text: "on leave",
        emoji_name: "car",
        emoji_code: "1f697",
        reaction_type: "unicode_emoji",
      },
      { type: "user_status", user_id: hamlet, status_text: "" },
    ]);
    // An administrator may set their own status this way too.
    expectSuccess(await setFor("iago", u("iago").id, { status_text: "here" }));
    expect(await statusOf(u("iago").id)).to.deep.equal({ status_text: "here" });
  });

  it("refuses everyone but administrators, changing nothing", async function () {
    const { u, setFor, statusOf } = await fresh();
    const hamlet = u("hamlet").id;
    expectSuccess(await u("hamlet").client.post("/users/me/status", { status_text: "mine" }));
    const { queue_id } = await register(u("othello").client, { event_types: ["user_status"] });
    for (const actor of ["prospero", "othello", "polonius"]) {
      expectError(await setFor(actor, hamlet, { status_text: "theirs" }), 400, "Insufficient permission");
    }
    // Not even for oneself: members use /users/me/status.
    expectError(await setFor("hamlet", hamlet, { status_text: "theirs" }), 400, "Insufficient permission");
    expect(await statusOf(hamlet)).to.deep.equal({ status_text: "mine" });
    expect(
      (await pendingEvents(u("othello").client, queue_id)).filter((e) => e.type !== "heartbeat"),
    ).to.deep.equal([]);
  });

  it("refuses unknown users, bots, deactivated users and bad values, changing nothing", async function () {
    const { realm, u, setFor, statusOf } = await fresh();
    const bot = await server.factory.user(realm.id, "fool-bot", 400, {
      isBot: true,
      botOwnerId: u("iago").id,
    });
    expectError(await setFor("iago", 999999, { status_text: "x" }), 400, "No such user");
    expectError(await setFor("iago", bot.id, { status_text: "x" }), 400, "No such user");
    expectError(
      await u("iago").client.post("/users/hamlet/status", { status_text: "x" }),
      400,
      "Invalid user_id",
    );
    const othello = u("othello").id;
    expectSuccess(await u("othello").client.post("/users/me/status", { status_text: "before" }));
    expectSuccess(await u("iago").client.delete(`/users/${othello}`));
    expectError(await setFor("iago", othello, { status_text: "after" }), 400, "User is deactivated");
    // A member asking about a deactivated user learns that first, as Zulip's access check orders it.
    expectError(await setFor("hamlet", othello, { status_text: "after" }), 400, "User is deactivated");
    expectSuccess(await u("iago").client.post(`/users/${othello}/reactivate`));
    expect(await statusOf(othello)).to.deep.equal({ status_text: "before" });
    const hamlet = u("hamlet").id;
    expectError(await setFor("iago", hamlet, {}), 400, "Client did not pass any new values.");
    expectError(
      await setFor("iago", hamlet, { status_text: "x".repeat(61) }),
      400,
      "status_text is too long (limit: 60 characters)",
    );
    expectError(
      await setFor("iago", hamlet, { emoji_code: "1f604", status_text: "x" }),
      400,
      "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
    );
    expectError(
      await setFor("iago", hamlet, { emoji_name: "no_such_emoji" }),
      400,
      "Emoji 'no_such_emoji' does not exist",
    );
    expect(await statusOf(hamlet)).to.deep.equal({});
  });
});

import { expect } from "chai";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** A device as register reports it: chatd never has push keys or tokens. */
const NO_PUSH = {
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
};

const NOT_CONFIGURED = "Server is not configured to use push notification service.";

/** What the mobile app sends to POST /mobile_push/register (both groups of fields). */
const appRegistration = (deviceId: number) => ({
  device_id: deviceId,
  push_key: "MY+paNlyduYJRQFNZva8w7Gv3PkBua9kIj581F9Vr301",
  push_key_id: 2408,
  token_kind: "fcm",
  token_id: "AAECAwQFBgc=",
  bouncer_public_key: "bouncer-public-key",
  encrypted_push_registration: "encrypted-push-registration",
});

describe("mobile devices (no push notifications)", function () {
  let server: TestServer;
  let realm: TestRealm;
  const user = (name: string) => realm.users[name]!;
  const devicesOf = async (someone: TestUser) =>
    (await register(someone.client, { fetch_event_types: ["device"] })).devices as Record<string, unknown>;
  const newDevice = async (someone: TestUser) =>
    expectSuccess(await someone.client.post("/register_client_device")).device_id as number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  describe("POST /register_client_device and POST /remove_client_device", function () {
    it("registers devices, each with its own ID, listed in register's devices", async function () {
      const hamlet = user("hamlet");
      expect(await devicesOf(hamlet)).to.deep.equal({});
      const first = await newDevice(hamlet);
      const second = await newDevice(hamlet);
      expect(first).to.be.a("number");
      expect(second).to.not.equal(first);
      expect(await devicesOf(hamlet)).to.deep.equal({ [first]: NO_PUSH, [second]: NO_PUSH });
      // Everyone has their own list.
      expect(await devicesOf(user("othello"))).to.deep.equal({});
      // Without fetch_event_types, devices come with everything else.
      expect((await register(hamlet.client)).devices).to.deep.equal({ [first]: NO_PUSH, [second]: NO_PUSH });
      expect(await register(hamlet.client, { fetch_event_types: ["realm"] })).to.not.have.property("devices");
    });

    it("removes only the user's own devices", async function () {
      const othello = user("othello");
      const cordelia = user("cordelia");
      const mine = await newDevice(othello);
      const theirs = await newDevice(cordelia);
      expectError(
        await othello.client.post("/remove_client_device", { device_id: theirs }),
        400,
        "Invalid `device_id`",
      );
      expectError(
        await othello.client.post("/remove_client_device", { device_id: 999999 }),
        400,
        "Invalid `device_id`",
      );
      expectError(
        await othello.client.post("/remove_client_device"),
        400,
        "Missing 'device_id' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(
        await othello.client.post("/remove_client_device", { device_id: "one" }),
        400,
        "device_id is not an integer",
      );
      expect(Object.keys(await devicesOf(cordelia))).to.deep.equal([String(theirs)]);
      expectSuccess(await othello.client.post("/remove_client_device", { device_id: mine }));
      expect(await devicesOf(othello)).to.deep.equal({});
      expectError(
        await othello.client.post("/remove_client_device", { device_id: mine }),
        400,
        "Invalid `device_id`",
      );
    });

    it("announces changes to the user's own queues only", async function () {
      const prospero = user("prospero");
      const others = await register(user("iago").client);
      const ids: number[] = [];
      const events = await verifyRegisterParity(prospero.client, {}, async () => {
        ids.push(await newDevice(prospero), await newDevice(prospero));
        expectSuccess(await prospero.client.post("/remove_client_device", { device_id: ids[0] }));
      });
      const deviceEvents = events.filter((e) => e.type === "device");
      expect(deviceEvents.map((e): unknown[] => [e.op, e.device_id])).to.deep.equal([
        ["add", ids[0]],
        ["add", ids[1]],
        ["remove", ids[0]],
      ]);
      expect(Object.keys(deviceEvents[0]!).sort()).to.deep.equal(["device_id", "id", "op", "type"]);
      const seen = await pendingEvents(user("iago").client, others.queue_id as string);
      expect(seen.filter((e) => e.type === "device")).to.deep.equal([]);
    });

    it("are for anyone with an account, bots too, and only with credentials", async function () {
      const bot = await server.factory.user(realm.id, "yorick-bot", 400, {
        isBot: true,
        botOwnerId: user("hamlet").id,
      });
      const id = await newDevice(bot);
      expectSuccess(await bot.client.post("/remove_client_device", { device_id: id }));
      expect((await server.anonymous.post("/register_client_device")).status).to.equal(401);
      expect((await server.anonymous.post("/remove_client_device", { device_id: id })).status).to.equal(401);
    });
  });

  describe("push notifications: chatd has no push service", function () {
    it("says so in /server_settings and register", async function () {
      const settings = expectSuccess(await server.anonymous.get("/server_settings"));
      expect(settings.push_notifications_enabled).to.equal(false);
      const state = await register(user("hamlet").client, { fetch_event_types: ["realm"] });
      expect(state.realm_push_notifications_enabled).to.equal(false);
    });

    it("POST /mobile_push/register refuses as a Zulip server without push, storing nothing", async function () {
      const desdemona = user("desdemona");
      const id = await newDevice(desdemona);
      const res = await desdemona.client.post("/mobile_push/register", appRegistration(id));
      expectError(res, 400, NOT_CONFIGURED, "PUSH_SERVICE_NOT_CONFIGURED");
      // Key rotation alone, and a device that is not the user's: the same answer.
      expectError(
        await desdemona.client.post("/mobile_push/register", {
          device_id: id,
          push_key: "a2V5",
          push_key_id: 1,
        }),
        400,
        NOT_CONFIGURED,
        "PUSH_SERVICE_NOT_CONFIGURED",
      );
      expect(await devicesOf(desdemona)).to.deep.equal({ [id]: NO_PUSH });
    });

    it("POST /mobile_push/register checks its parameters first, and refuses bots", async function () {
      const hamlet = user("hamlet");
      const id = await newDevice(hamlet);
      const { device_id: _, ...withoutDevice } = appRegistration(id);
      expectError(
        await hamlet.client.post("/mobile_push/register", withoutDevice),
        400,
        "Missing 'device_id' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      for (const pushKeyId of [-1, 4294967296]) {
        expectError(
          await hamlet.client.post("/mobile_push/register", {
            ...appRegistration(id),
            push_key_id: pushKeyId,
          }),
          400,
          "Invalid push_key_id: Value error, Not a valid unsigned 32-bit integer",
        );
      }
      expectError(
        await hamlet.client.post("/mobile_push/register", { ...appRegistration(id), token_kind: "xyz" }),
        400,
        "Invalid token_kind: Value error, Not in the list of possible values",
      );
      const bot = await server.factory.user(realm.id, "osric-bot", 400, {
        isBot: true,
        botOwnerId: hamlet.id,
      });
      expectError(
        await bot.client.post("/mobile_push/register", appRegistration(await newDevice(bot))),
        400,
        "This endpoint does not accept bot requests.",
      );
      expect((await server.anonymous.post("/mobile_push/register", appRegistration(id))).status).to.equal(
        401,
      );
    });

    it("POST /mobile_push/test_notification gives Zulip's errors, and never claims a notification went out", async function () {
      const cordelia = user("cordelia");
      const test = (params = {}) => cordelia.client.post("/mobile_push/test_notification", params);
      expectError(await test(), 400, NOT_CONFIGURED, "PUSH_SERVICE_NOT_CONFIGURED");
      expectError(await test({ token: "111222" }), 400, "Device not recognized", "INVALID_PUSH_DEVICE_TOKEN");
      expectSuccess(await cordelia.client.post("/users/me/android_gcm_reg_id", { token: "111222" }));
      expectError(await test({ token: "111222" }), 400, NOT_CONFIGURED, "PUSH_SERVICE_NOT_CONFIGURED");
      expectError(await test(), 400, NOT_CONFIGURED, "PUSH_SERVICE_NOT_CONFIGURED");
      // Another user's token is not the caller's device.
      expectError(
        await user("othello").client.post("/mobile_push/test_notification", { token: "111222" }),
        400,
        "Device not recognized",
        "INVALID_PUSH_DEVICE_TOKEN",
      );
      const bot = await server.factory.user(realm.id, "rosencrantz-bot", 400, {
        isBot: true,
        botOwnerId: cordelia.id,
      });
      expectError(
        await bot.client.post("/mobile_push/test_notification"),
        400,
        "This endpoint does not accept bot requests.",
      );
    });

    it("POST /mobile_push/e2ee/test_notification finds no registered push device", async function () {
      const polonius = user("polonius");
      const id = await newDevice(polonius);
      for (const params of [{}, { device_id: id }]) {
        expectError(
          await polonius.client.post("/mobile_push/e2ee/test_notification", params),
          400,
          "No active registered push device",
          "NO_ACTIVE_PUSH_DEVICE",
        );
      }
    });

    it("keeps a deactivated user's devices, as Zulip does (they cannot log in to use them)", async function () {
      const hamlet = user("hamlet");
      await newDevice(hamlet);
      const before = await devicesOf(hamlet);
      expectSuccess(await user("iago").client.delete(`/users/${hamlet.id}`));
      expect((await hamlet.client.post("/register_client_device")).status).to.equal(401);
      expectSuccess(await user("iago").client.post(`/users/${hamlet.id}/reactivate`));
      expect(await devicesOf(hamlet)).to.deep.equal(before);
    });
  });
});

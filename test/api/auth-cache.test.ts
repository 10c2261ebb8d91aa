import { expect } from "chai";
import { confirmEmailChange } from "../helpers/email-change.js";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ROLE } from "../../src/world/roles.js";

// Authentication remembers a Basic credential that worked (http/auth.ts). Each test
// first authenticates, so the credential is remembered, then changes what it rests on:
// the very next request must see the change.
describe("authentication: remembered credentials", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  it("a regenerated key refuses the old key at once, twice over", async function () {
    const cast = await server.factory.realm({ cordelia: ROLE.MEMBER }, "Regen cache");
    const cordelia = cast.users.cordelia!;
    expectSuccess(await cordelia.client.get("/users/me"));
    expectSuccess(await cordelia.client.get("/users/me"));
    const body = expectSuccess(await cordelia.client.post("/users/me/api_key/regenerate"));
    for (let i = 0; i < 2; i++) {
      expectError(await cordelia.client.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
    }
    const renewed = new Client(server.url, { email: cordelia.email, apiKey: body.api_key as string });
    expectSuccess(await renewed.get("/users/me"));
    expectSuccess(await renewed.get("/users/me"));
  });

  it("a deactivated user is refused at once, and let in again on reactivation", async function () {
    const cast = await server.factory.realm({ iago: ROLE.ADMINISTRATOR, hamlet: ROLE.MEMBER }, "Deact cache");
    const { iago, hamlet } = cast.users as Required<typeof cast.users>;
    expectSuccess(await hamlet!.client.get("/users/me"));
    expectSuccess(await iago!.client.delete(`/users/${hamlet!.id}`));
    expectError(await hamlet!.client.get("/users/me"), 401, "Account is deactivated", "USER_DEACTIVATED");
    expectSuccess(await iago!.client.post(`/users/${hamlet!.id}/reactivate`));
    expectSuccess(await hamlet!.client.get("/users/me"));
  });

  it("a demoted administrator is refused admin endpoints at once, and nothing changes", async function () {
    const cast = await server.factory.realm(
      { desdemona: ROLE.OWNER, iago: ROLE.ADMINISTRATOR, hamlet: ROLE.MEMBER },
      "Role cache",
    );
    const { desdemona, iago, hamlet } = cast.users as Required<typeof cast.users>;
    expectSuccess(await iago!.client.patch(`/users/${hamlet!.id}`, { full_name: "Hamlet I" }));
    expectSuccess(await desdemona!.client.patch(`/users/${iago!.id}`, { role: JSON.stringify(ROLE.MEMBER) }));
    expectError(
      await iago!.client.patch(`/users/${hamlet!.id}`, { full_name: "Hamlet II" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect(expectSuccess(await hamlet!.client.get("/users/me")).full_name).to.equal("Hamlet I");
    expect(expectSuccess(await iago!.client.get("/users/me")).role).to.equal(ROLE.MEMBER);
  });

  it("a deactivated organization is refused at once", async function () {
    const cast = await server.factory.realm({ hamlet: ROLE.MEMBER }, "Realm cache");
    const hamlet = cast.users.hamlet!;
    expectSuccess(await hamlet.client.get("/users/me"));
    await server.app.db.transaction(async (tx) => {
      await tx.knex("realms").where({ id: cast.id }).update({ deactivated: true });
      tx.afterCommit(() => server.app.realms.invalidate(cast.id));
    });
    expectError(
      await hamlet.client.get("/users/me"),
      401,
      "This organization is deactivated",
      "REALM_DEACTIVATED",
    );
  });

  it("a remembered credential is the whole header: another email with the same key is refused", async function () {
    const cast = await server.factory.realm({ hamlet: ROLE.MEMBER, othello: ROLE.MEMBER }, "Email cache");
    const { hamlet, othello } = cast.users as Required<typeof cast.users>;
    expectSuccess(await hamlet!.client.get("/users/me"));
    const wrong = new Client(server.url, { email: othello!.email, apiKey: hamlet!.apiKey });
    expectError(await wrong.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
    expectSuccess(await hamlet!.client.get("/users/me"));
  });

  it("a changed email refuses the remembered old email's header at once, and the new email gets in", async function () {
    const cast = await server.factory.realm({ hamlet: ROLE.MEMBER }, "Email change cache");
    const hamlet = cast.users.hamlet!;
    const oldEmail = hamlet.email;
    // Twice: the second request is served from the remembered credential.
    expectSuccess(await hamlet.client.get("/users/me"));
    expectSuccess(await hamlet.client.get("/users/me"));
    const newEmail = `renamed-${hamlet.id}@zulip.test`;
    expectSuccess(await hamlet.client.patch("/settings", { email: newEmail }));
    expect((await confirmEmailChange(server, newEmail)).status).to.equal(200);
    const stale = new Client(server.url, { email: oldEmail, apiKey: hamlet.apiKey });
    for (let i = 0; i < 2; i++) {
      expectError(await stale.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
    }
    const renamed = new Client(server.url, { email: newEmail, apiKey: hamlet.apiKey });
    for (let i = 0; i < 2; i++) {
      expect(expectSuccess(await renamed.get("/users/me")).email).to.equal(newEmail);
    }
  });

  it("an email an owner changes refuses the remembered old email's header at once", async function () {
    const cast = await server.factory.realm(
      { desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER },
      "Admin email change cache",
    );
    const { desdemona, hamlet } = cast.users as Required<typeof cast.users>;
    const stale = new Client(server.url, { email: hamlet!.email, apiKey: hamlet!.apiKey });
    expectSuccess(await stale.get("/users/me"));
    expectSuccess(await stale.get("/users/me"));
    const newEmail = `moved-${hamlet!.id}@zulip.test`;
    expectSuccess(await desdemona!.client.patch(`/users/${hamlet!.id}`, { new_email: newEmail }));
    expectError(await stale.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
    const renamed = new Client(server.url, { email: newEmail, apiKey: hamlet!.apiKey });
    expect(expectSuccess(await renamed.get("/users/me")).email).to.equal(newEmail);
  });
});

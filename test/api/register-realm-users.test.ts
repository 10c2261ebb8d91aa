import { expect } from "chai";
import { expectSuccess } from "../helpers/client.js";
import { cast, deactivateUser, type Cast } from "../helpers/channels.js";
import { register } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

type Person = { user_id: number; delivery_email: string | null; avatar_url: string | null } & Record<
  string,
  unknown
>;

/**
 * /register's realm_users is encoded once per realm snapshot and viewer class and shared
 * (queries/realm-users-json.ts): each viewer must still get exactly their own view.
 */
describe("POST /register realm_users, shared between registers", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  const people = async (user: TestUser, params: Record<string, unknown> = {}) => {
    const state = await register(user.client, { fetch_event_types: '["realm_user"]', ...params });
    return {
      active: new Map((state.realm_users as Person[]).map((p) => [p.user_id, p])),
      inactive: new Map((state.realm_non_active_users as Person[]).map((p) => [p.user_id, p])),
    };
  };

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    // Only administrators may see these two members' real addresses.
    for (const user of [u.hamlet, u.othello]) {
      expectSuccess(await user.client.patch("/settings", { email_address_visibility: 3 }));
    }
  });

  after(async function () {
    await server.close();
  });

  it("gives each member their own address and hides the other's, in turn", async function () {
    const { hamlet, othello } = u;
    for (const [viewer, other] of [
      [hamlet, othello],
      [othello, hamlet],
      [hamlet, othello],
    ] as const) {
      const seen = (await people(viewer)).active;
      expect(seen.get(viewer.id)!.delivery_email, viewer.email).to.equal(viewer.email);
      expect(seen.get(other.id)!.delivery_email, viewer.email).to.equal(null);
    }
  });

  it("shows an administrator every address after members registered", async function () {
    await people(u.hamlet);
    const seen = (await people(u.iago)).active;
    for (const user of [u.hamlet, u.othello]) expect(seen.get(user.id)!.delivery_email).to.be.a("string");
  });

  it("answers each client_gravatar setting with its own avatar URLs", async function () {
    const computed = (await people(u.iago, { client_gravatar: "true" })).active;
    const given = (await people(u.iago, { client_gravatar: "false" })).active;
    expect(computed.get(u.cordelia.id)!.avatar_url).to.equal(null);
    expect(given.get(u.cordelia.id)!.avatar_url).to.be.a("string");
  });

  it("shows a name change and a new profile value at the next register", async function () {
    await people(u.othello);
    expectSuccess(await u.hamlet.client.patch("/settings", { full_name: "Prince Hamlet" }));
    const field = expectSuccess(
      await u.iago.client.post("/realm/profile_fields", { field_type: 1, name: "Motto" }),
    ).id as number;
    expectSuccess(
      await u.hamlet.client.patch("/users/me/profile_data", { data: [{ id: field, value: "To be" }] }),
    );
    const seen = (await people(u.othello)).active.get(u.hamlet.id)!;
    expect(seen.full_name).to.equal("Prince Hamlet");
    expect(seen.profile_data).to.have.property(String(field));
    // The value changes again with no other change to the realm.
    expectSuccess(
      await u.hamlet.client.patch("/users/me/profile_data", { data: [{ id: field, value: "Not to be" }] }),
    );
    const again = (await people(u.othello)).active.get(u.hamlet.id)!;
    expect((again.profile_data as Record<string, { value: string }>)[String(field)]!.value).to.equal(
      "Not to be",
    );
  });

  it("lists a deactivated user apart, without is_active", async function () {
    await people(u.desdemona);
    await deactivateUser(server, realm, u.polonius);
    const { active, inactive } = await people(u.desdemona);
    expect(active.has(u.polonius.id)).to.equal(false);
    expect(inactive.get(u.polonius.id)).to.include({
      user_id: u.polonius.id,
      full_name: u.polonius.fullName,
    });
    expect(inactive.get(u.polonius.id)).not.to.have.property("is_active");
  });
});

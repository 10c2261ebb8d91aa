import { expect } from "chai";
import { cast, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("code playgrounds: /realm/playgrounds", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
  });
  after(async function () {
    await server.close();
  });

  const playgrounds = async () => (await register(u.hamlet.client)).realm_playgrounds as unknown[];
  const rust = {
    name: "Rust playground",
    pygments_language: "rust",
    url_template: "https://play.rust-lang.org/?code={code}",
  };

  it("adds and removes playgrounds, telling everyone (register parity)", async function () {
    let id = 0;
    await verifyRegisterParity(u.hamlet.client, {}, async () => {
      id = expectSuccess(
        await u.iago.client.post("/realm/playgrounds", { ...rust, name: "  Rust playground " }),
      ).id as number;
    });
    expect(await playgrounds()).to.deep.equal([{ id, ...rust }]);
    await verifyRegisterParity(u.hamlet.client, {}, async () => {
      expectSuccess(await u.iago.client.delete(`/realm/playgrounds/${id}`));
    });
    expect(await playgrounds()).to.deep.equal([]);
    expectError(await u.iago.client.delete(`/realm/playgrounds/${id}`), 400, "Invalid playground");
  });

  it("validates the language and the URL template as Zulip does; nothing is added", async function () {
    expectSuccess(await u.iago.client.post("/realm/playgrounds", rust));
    const before = await playgrounds();
    const cases: Array<[Record<string, string>, string]> = [
      [{ pygments_language: "py$" }, "Invalid characters in pygments language"],
      [{ pygments_language: "Python" }, "Invalid characters in pygments language"],
      [{ pygments_language: "x".repeat(41) }, "pygments_language is too long (limit: 40 characters)"],
      [{ url_template: "https://x/{code" }, "Invalid URL template."],
      [{ url_template: "https://x/{input}" }, 'Missing the required variable "code" in the URL template'],
      [
        { url_template: "https://x/{code}{lang}" },
        '"code" should be the only variable present in the URL template',
      ],
      [{}, "Realm playground with this Realm, Pygments language and Name already exists."],
    ];
    for (const [change, message] of cases) {
      expectError(await u.iago.client.post("/realm/playgrounds", { ...rust, ...change }), 400, message);
    }
    expect(await playgrounds()).to.deep.equal(before);
  });

  it("refuses non-administrators; nothing changes", async function () {
    const before = (await playgrounds()) as Array<{ id: number }>;
    const admin = "Must be an organization administrator";
    expectError(
      await u.prospero.client.post("/realm/playgrounds", { ...rust, name: "Other" }),
      400,
      admin,
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await u.hamlet.client.delete(`/realm/playgrounds/${before[0]!.id}`),
      400,
      admin,
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect(await playgrounds()).to.deep.equal(before);
  });
});

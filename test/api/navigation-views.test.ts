import { expect } from "chai";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

describe("navigation views", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm: TestRealm = await server.factory.realm({ hamlet: 400, othello: 400 });
    const hamlet = realm.users.hamlet!.client;
    const views = async (client = hamlet) =>
      expectSuccess(await client.get("/navigation_views")).navigation_views as Array<Record<string, unknown>>;
    const add = (params: Params) => hamlet.post("/navigation_views", params);
    return { realm, hamlet, othello: realm.users.othello!.client, views, add };
  };

  it("adds built-in overrides (no name) and custom views (named)", async function () {
    const { views, add } = await fresh();
    expect(await views()).to.deep.equal([]);
    expectSuccess(await add({ fragment: "inbox", is_pinned: false }));
    expectSuccess(await add({ fragment: " narrow/is/alerted ", is_pinned: true, name: " Alert words " }));
    expect(await views()).to.deep.equal([
      { fragment: "inbox", is_pinned: false },
      { fragment: "narrow/is/alerted", is_pinned: true, name: "Alert words" },
    ]);
  });

  it("refuses names on built-in views, custom views without one, duplicates and blanks", async function () {
    const { views, add } = await fresh();
    expectSuccess(await add({ fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" }));
    expectError(
      await add({ fragment: "narrow/is/starred", is_pinned: true, name: "Stars" }),
      400,
      "Built-in views cannot have a custom name.",
    );
    expectError(
      await add({ fragment: "narrow/channel/9", is_pinned: true }),
      400,
      "Custom views must have a valid name.",
    );
    expectError(
      await add({ fragment: "narrow/is/alerted", is_pinned: false, name: "Other" }),
      400,
      "Navigation view already exists.",
    );
    expectError(
      await add({ fragment: "narrow/channel/9", is_pinned: false, name: "Alerts" }),
      400,
      "Navigation view already exists.",
    );
    expectError(await add({ fragment: "  ", is_pinned: true }), 400, "fragment cannot be blank");
    expectError(await add({ fragment: "narrow/x", is_pinned: true, name: " " }), 400, "name cannot be blank");
    expectError(
      await add({ fragment: "inbox" }),
      400,
      "Missing 'is_pinned' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expect(await views()).to.have.lengthOf(1);
  });

  it("updates a view by fragment, slashes and all", async function () {
    const { hamlet, views, add } = await fresh();
    expectSuccess(await add({ fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" }));
    expectSuccess(await add({ fragment: "narrow/is/starred", is_pinned: true }));
    expectSuccess(
      await hamlet.patch("/navigation_views/narrow/is/alerted", { is_pinned: false, name: "Watched" }),
    );
    expectSuccess(await hamlet.patch("/navigation_views/narrow%2Fis%2Fstarred", { is_pinned: false }));
    expect(await views()).to.deep.equal([
      { fragment: "narrow/is/alerted", is_pinned: false, name: "Watched" },
      { fragment: "narrow/is/starred", is_pinned: false },
    ]);
    expectError(
      await hamlet.patch("/navigation_views/narrow/is/starred", { name: "Stars" }),
      400,
      "Built-in views cannot have a custom name.",
    );
    expectError(
      await hamlet.patch("/navigation_views/narrow/is/mentioned", { is_pinned: true }),
      404,
      "Navigation view does not exist.",
      "NOT_FOUND",
    );
    // Renaming to its own name is fine; to another view's name is not.
    expectSuccess(await add({ fragment: "narrow/channel/7", is_pinned: true, name: "Seven" }));
    expectSuccess(await hamlet.patch("/navigation_views/narrow/channel/7", { name: "Seven" }));
    expectError(
      await hamlet.patch("/navigation_views/narrow/channel/7", { name: "Watched" }),
      400,
      "Navigation view already exists.",
    );
  });

  it("removes a view; unknown fragments are NOT_FOUND", async function () {
    const { hamlet, views, add } = await fresh();
    expectSuccess(await add({ fragment: "recent", is_pinned: false }));
    expectSuccess(await hamlet.delete("/navigation_views/recent"));
    expect(await views()).to.deep.equal([]);
    expectError(
      await hamlet.delete("/navigation_views/recent"),
      404,
      "Navigation view does not exist.",
      "NOT_FOUND",
    );
  });

  it("keeps each user's views to themself", async function () {
    const { othello, views, add } = await fresh();
    expectSuccess(await add({ fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" }));
    expect(await views(othello)).to.deep.equal([]);
    expectError(
      await othello.patch("/navigation_views/narrow/is/alerted", { is_pinned: false }),
      404,
      "Navigation view does not exist.",
      "NOT_FOUND",
    );
    expectError(
      await othello.delete("/navigation_views/narrow/is/alerted"),
      404,
      "Navigation view does not exist.",
      "NOT_FOUND",
    );
    // Othello may use the same fragment and name for his own view.
    expectSuccess(
      await othello.post("/navigation_views", {
        fragment: "narrow/is/alerted",
        is_pinned: false,
        name: "Alerts",
      }),
    );
    expect(await views()).to.deep.equal([{ fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" }]);
  });

  it("sends navigation_view events to the user only; state plus events equals a fresh register", async function () {
    const { hamlet, othello, add } = await fresh();
    const other = await register(othello, { event_types: ["navigation_view"] });
    const events = await verifyRegisterParity(hamlet, {}, async () => {
      expectSuccess(await add({ fragment: "inbox", is_pinned: false }));
      expectSuccess(await add({ fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" }));
      expectSuccess(await hamlet.patch("/navigation_views/narrow/is/alerted", { name: "Watched" }));
      expectSuccess(await hamlet.patch("/navigation_views/inbox", { is_pinned: true }));
      expectSuccess(await hamlet.delete("/navigation_views/inbox"));
    });
    expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal([
      { type: "navigation_view", op: "add", navigation_view: { fragment: "inbox", is_pinned: false } },
      {
        type: "navigation_view",
        op: "add",
        navigation_view: { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" },
      },
      { type: "navigation_view", op: "update", fragment: "narrow/is/alerted", data: { name: "Watched" } },
      { type: "navigation_view", op: "update", fragment: "inbox", data: { is_pinned: true } },
      { type: "navigation_view", op: "remove", fragment: "inbox" },
    ]);
    expect(await pendingEvents(othello, other.queue_id)).to.deep.equal([]);
  });
});

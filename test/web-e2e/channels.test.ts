import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import {
  launchBrowser,
  logIn,
  messages,
  requireBrowser,
  screenshotOnFailure,
  type Person,
} from "../helpers/browser.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";
import { checkView, makeChannels } from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

/** Channels: browsing, joining and leaving, creating public and private ones. */
describe("web client: channels", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let othello: Person;

  const sidebar = (page: Page) => page.getByRole("navigation", { name: "Channels" });
  const browse = async (page: Page) => {
    await sidebar(page).getByRole("link", { name: "Browse channels" }).click();
    await page.getByRole("heading", { level: 1, name: "Channels" }).waitFor();
  };

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
    const { desdemona, hamlet: h, othello: o } = realm.users;
    await makeChannels(desdemona!, [{ name: "Denmark" }], [desdemona!, h!, o!]);
    await makeChannels(desdemona!, [{ name: "Verona", description: "Fair **Verona**" }], [desdemona!]);
    browser = await launchBrowser();
    hamlet = await logIn(browser, server, h!.email, h!.password);
    othello = await logIn(browser, server, o!.email, o!.password);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [hamlet, othello]);
    expect(hamlet?.problems ?? []).to.deep.equal([]);
    expect(othello?.problems ?? []).to.deep.equal([]);
  });

  it("browses every channel with its description: one h1, focus rings, named controls", async function () {
    await browse(hamlet.page);
    const list = hamlet.page.getByRole("list", { name: "All channels" });
    await list.getByRole("link", { name: "Verona", exact: true }).waitFor();
    await list
      .getByRole("listitem")
      .filter({ hasText: "Verona" })
      .locator("strong", { hasText: "Verona" })
      .waitFor();
    await checkView(hamlet.page, "Channels");
  });

  it("subscribes and unsubscribes; the sidebar follows", async function () {
    await browse(hamlet.page);
    await hamlet.page.getByRole("button", { name: "Subscribe to Verona" }).click();
    await sidebar(hamlet.page).getByRole("link", { name: "Verona", exact: true }).waitFor();
    await hamlet.page.getByRole("button", { name: "Unsubscribe from Verona" }).click();
    await sidebar(hamlet.page)
      .getByRole("link", { name: "Verona", exact: true })
      .waitFor({ state: "detached" });
    await hamlet.page.getByRole("button", { name: "Subscribe to Verona" }).waitFor();
  });

  it("creates a public channel: its creator lands in it; another member finds it in Browse", async function () {
    await browse(hamlet.page);
    await browse(othello.page);
    await hamlet.page.getByRole("button", { name: "Create a channel" }).click();
    const form = hamlet.page.getByRole("form", { name: "Create a channel" });
    await form.getByLabel("Channel name").fill("Rialto");
    await form.getByLabel("Description").fill("Where *merchants* meet");
    await form.getByRole("button", { name: "Create" }).click();
    await hamlet.page.getByRole("heading", { level: 1, name: "#Rialto" }).waitFor();
    // The description is shown, rendered, in the channel's header.
    await hamlet.page.locator("em", { hasText: "merchants" }).first().waitFor();
    await sidebar(hamlet.page).getByRole("link", { name: "Rialto", exact: true }).waitFor();
    await messages(hamlet.page).filter({ hasText: "channel created by" }).waitFor();
    // Othello was on Browse all along: the channel appears there, live.
    await othello.page.getByRole("button", { name: "Subscribe to Rialto" }).waitFor();
    expect(await sidebar(othello.page).getByRole("link", { name: "Rialto", exact: true }).count()).to.equal(
      0,
    );
  });

  it("creates a private channel: its creator lands in it; nobody else sees it", async function () {
    await browse(hamlet.page);
    await hamlet.page.getByRole("button", { name: "Create a channel" }).click();
    const form = hamlet.page.getByRole("form", { name: "Create a channel" });
    await form.getByLabel("Channel name").fill("Conspiracy");
    await form.getByRole("checkbox", { name: "Private: only people added can see it" }).check();
    await form.getByRole("button", { name: "Create" }).click();
    await hamlet.page.getByRole("heading", { level: 1, name: "#Conspiracy" }).waitFor();
    const channels = hamlet.page.getByRole("list", { name: "All channels" });
    await browse(hamlet.page);
    await channels.getByRole("link", { name: "Conspiracy", exact: true }).waitFor();
    await browse(othello.page);
    await othello.page
      .getByRole("list", { name: "All channels" })
      .getByRole("link", { name: "Rialto" })
      .waitFor();
    expect(
      await othello.page
        .getByRole("list", { name: "All channels" })
        .getByRole("link", { name: "Conspiracy" })
        .count(),
    ).to.equal(0);
  });

  it("refuses a channel name already taken, saying why", async function () {
    await browse(hamlet.page);
    await hamlet.page.getByRole("button", { name: "Create a channel" }).click();
    const form = hamlet.page.getByRole("form", { name: "Create a channel" });
    await form.getByLabel("Channel name").fill("Denmark");
    await form.getByRole("button", { name: "Create" }).click();
    // Joining an existing channel by name is what the API does; the form says so rather than silently joining.
    await form.getByRole("alert").waitFor();
    expect(await hamlet.page.getByRole("heading", { level: 1 }).textContent()).to.equal("Channels");
  });
});

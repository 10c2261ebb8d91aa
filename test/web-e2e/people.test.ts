import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { expectSuccess } from "../helpers/client.js";
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
import {
  descriptionOf,
  expectEventually,
  makeChannels,
  sendToChannel,
  unnamedControls,
} from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

/** People: the users' list with presence and status, profile cards, one's own status, muting. */
describe("web client: people", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let othello: Person;
  let ids: Record<string, number>;

  const users = (page: Page) => page.getByRole("complementary", { name: "Users" });
  const entry = (page: Page, name: string) => users(page).getByRole("button", { name, exact: true });

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({
      desdemona: ROLE.OWNER,
      hamlet: ROLE.MEMBER,
      othello: ROLE.MEMBER,
      cordelia: ROLE.MEMBER,
    });
    const { desdemona, hamlet: h, othello: o, cordelia: c } = realm.users;
    ids = await makeChannels(desdemona!, [{ name: "Denmark" }], [desdemona!, h!, o!, c!]);
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

  it("shows who is active, live, the active first", async function () {
    const cordelia = entry(hamlet.page, "Cordelia Dane");
    expect(await descriptionOf(cordelia)).to.equal("Offline");
    // Othello's own browser reported him active; Cordelia only now, from elsewhere.
    await expectEventually(
      async () => (await descriptionOf(entry(hamlet.page, "Othello Dane"))) === "Active",
    );
    expectSuccess(
      await realm.users.cordelia!.client.post("/users/me/presence", {
        status: "active",
        new_user_input: true,
      }),
    );
    await expectEventually(async () => (await descriptionOf(cordelia)) === "Active");
    const order = await users(hamlet.page)
      .getByRole("button")
      .evaluateAll((buttons: Array<{ getAttribute(name: string): string | null }>) =>
        buttons.map((b) => b.getAttribute("aria-label")),
      );
    expect(order).to.deep.equal(["Cordelia Dane", "Hamlet Dane", "Othello Dane", "Desdemona Dane"]);
  });

  it("filters the list by name or email", async function () {
    const filter = users(hamlet.page).getByRole("searchbox", { name: "Filter users" });
    await filter.fill("oth");
    await expectEventually(async () => (await users(hamlet.page).getByRole("button").count()) === 1);
    await entry(hamlet.page, "Othello Dane").waitFor();
    await filter.fill("desdemona@");
    await entry(hamlet.page, "Desdemona Dane").waitFor();
    expect(await users(hamlet.page).getByRole("button").count()).to.equal(1);
    await filter.fill("");
    await expectEventually(async () => (await users(hamlet.page).getByRole("button").count()) === 4);
  });

  it("opens a profile card (a dialog), and a direct message from it", async function () {
    await entry(hamlet.page, "Othello Dane").click();
    const card = hamlet.page.getByRole("dialog", { name: "Othello Dane" });
    await card.waitFor();
    await card.getByText("othello@zulip.test").waitFor();
    await card.getByText("Member", { exact: true }).waitFor();
    expect(await unnamedControls(hamlet.page)).to.deep.equal([]);
    // Focus is inside the dialog; Escape closes it and gives focus back.
    await hamlet.page.keyboard.press("Escape");
    await card.waitFor({ state: "detached" });
    expect(await hamlet.page.evaluate("document.activeElement?.getAttribute('aria-label')")).to.equal(
      "Othello Dane",
    );
    await entry(hamlet.page, "Othello Dane").click();
    await card.getByRole("button", { name: "Send direct message" }).click();
    await card.waitFor({ state: "detached" });
    await hamlet.page.getByRole("heading", { level: 1, name: "Direct messages with Othello Dane" }).waitFor();
    await hamlet.page.getByRole("button", { name: "Remove Othello Dane" }).waitFor();
    await hamlet.page.getByLabel("Message", { exact: true }).fill("A word in your ear");
    await hamlet.page.getByRole("button", { name: "Send" }).click();
    await othello.page
      .getByRole("navigation", { name: "Direct messages" })
      .getByRole("link", { name: "Hamlet Dane" })
      .waitFor();
  });

  it("sets one's status (text and emoji); the other person sees it beside the name, live", async function () {
    await hamlet.page.getByRole("button", { name: "Personal menu" }).click();
    await hamlet.page.getByRole("button", { name: "Set status" }).click();
    const dialog = hamlet.page.getByRole("dialog", { name: "Set status" });
    await dialog.getByRole("button", { name: "Choose status emoji" }).click();
    await dialog.getByRole("searchbox", { name: "Search emoji" }).fill("palm");
    await dialog.getByRole("button", { name: "palm_tree", exact: true }).click();
    await dialog.getByRole("button", { name: "Status emoji: palm_tree" }).waitFor();
    await dialog.getByLabel("Status text").fill("On the battlements");
    expect(await unnamedControls(hamlet.page)).to.deep.equal([]);
    await dialog.getByRole("button", { name: "Save status" }).click();
    await dialog.waitFor({ state: "detached" });
    const theirs = entry(othello.page, "Hamlet Dane");
    await expectEventually(
      async () => (await descriptionOf(theirs)) === "Active palm_tree On the battlements",
    );
    // Beside his name on his messages too (the emoji, as Zulip shows it).
    await sendToChannel(realm.users.hamlet!, ids.Denmark!, "status", "Who's there?");
    await othello.page.goto(`${server.url}/#narrow/channel/${ids.Denmark}-Denmark/topic/status`);
    await messages(othello.page)
      .filter({ hasText: "Who's there?" })
      .getByRole("img", { name: "palm_tree" })
      .waitFor();
    // Cleared from the dialog, cleared everywhere.
    await hamlet.page.getByRole("button", { name: "Personal menu" }).click();
    await hamlet.page.getByRole("button", { name: "Set status" }).click();
    await dialog.getByRole("button", { name: "Clear status" }).click();
    await expectEventually(async () => (await descriptionOf(theirs)) === "Active");
  });

  it("hides a muted person's messages, live, and shows them again when unmuted", async function () {
    await sendToChannel(realm.users.othello!, ids.Denmark!, "muting", "Honest Iago");
    await hamlet.page.goto(`${server.url}/#narrow/channel/${ids.Denmark}-Denmark/topic/muting`);
    const message = messages(hamlet.page).filter({ hasText: /Honest Iago|hidden because/ });
    await message.getByText("Honest Iago").waitFor();
    const o = realm.users.othello!;
    expectSuccess(await realm.users.hamlet!.client.post(`/users/me/muted_users/${o.id}`));
    await message.getByText("This message was hidden because you muted the sender.").waitFor();
    expect(await message.getByText("Honest Iago").count()).to.equal(0);
    expectSuccess(await realm.users.hamlet!.client.delete(`/users/me/muted_users/${o.id}`));
    await message.getByText("Honest Iago").waitFor();
  });
});

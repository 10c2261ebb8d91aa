import { expect } from "chai";
import type { Browser } from "playwright-core";
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
import { expectEventually, makeChannels, sendDirect, sendToChannel, styleOf } from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

/** Zulip's keyboard shortcuts: c, x, r, Enter, n, p, /, j, k, arrows, Esc, i. */
describe("web client: keyboard shortcuts", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let ids: Record<string, number>;

  const focused = () =>
    hamlet.page.evaluate<string>(`(() => {
      const el = document.activeElement;
      if (!el) return "";
      if (el.tagName === "ARTICLE") return "article: " + el.innerText.split("\\n").pop().trim();
      return (el.getAttribute("aria-label") ?? el.tagName).trim();
    })()`);
  const press = (key: string) => hamlet.page.keyboard.press(key);
  const blur = () => hamlet.page.evaluate("document.activeElement?.blur()");
  const heading = (name: string) => hamlet.page.getByRole("heading", { level: 1, name }).waitFor();

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
    const { desdemona: d, hamlet: h, othello: o } = realm.users;
    ids = await makeChannels(d!, [{ name: "Denmark" }, { name: "Verona" }], [d!, h!, o!]);
    for (const n of [1, 2, 3]) await sendToChannel(o!, ids.Denmark!, "alpha", `alpha ${n}`);
    for (const n of [1, 2]) await sendToChannel(d!, ids.Denmark!, "beta", `beta ${n}`);
    expectSuccess(await h!.client.post("/mark_all_as_read"));
    browser = await launchBrowser();
    hamlet = await logIn(browser, server, h!.email, h!.password);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [hamlet]);
    expect(hamlet?.problems ?? []).to.deep.equal([]);
  });

  it("c opens the compose box for a channel message, x for a direct message", async function () {
    await heading("Inbox");
    await press("c");
    await expectEventually(async () => (await focused()) === "Message");
    expect(
      await hamlet.page.getByRole("button", { name: "Channel", exact: true }).getAttribute("aria-pressed"),
    ).to.equal("true");
    await press("Escape");
    expect(await focused()).to.equal("BODY");
    await press("x");
    await expectEventually(async () => (await focused()) === "To");
    expect(
      await hamlet.page
        .getByRole("button", { name: "Direct message", exact: true })
        .getAttribute("aria-pressed"),
    ).to.equal("true");
    await press("Escape");
  });

  it("moves between messages with j and k and the arrows, with a visible focus ring", async function () {
    await hamlet.page.goto(`${server.url}/#narrow/channel/${ids.Denmark}-Denmark`);
    await heading("#Denmark");
    await messages(hamlet.page).filter({ hasText: "beta 2" }).waitFor();
    await blur();
    // The first press selects the message being read: the newest on screen.
    await press("k");
    expect(await focused()).to.equal("article: beta 2");
    await press("k");
    expect(await focused()).to.equal("article: beta 1");
    await press("ArrowUp");
    expect(await focused()).to.equal("article: alpha 3");
    await press("j");
    expect(await focused()).to.equal("article: beta 1");
    await press("ArrowDown");
    expect(await focused()).to.equal("article: beta 2");
    const article = messages(hamlet.page).filter({ hasText: "beta 2" });
    expect(await styleOf(article, "outline-style")).not.to.equal("none");
  });

  const topicValue = () => hamlet.page.getByLabel("Topic", { exact: true }).inputValue();

  it("r and Enter reply to the focused message: its topic, the compose box focused", async function () {
    await press("k");
    await press("k");
    expect(await focused()).to.equal("article: alpha 3");
    await press("r");
    await expectEventually(async () => (await focused()) === "Message");
    // The box is focused at once; the topic field shows the reply's topic at the next render.
    await expectEventually(async () => (await topicValue()) === "alpha");
    await press("Escape");
    await messages(hamlet.page).filter({ hasText: "beta 1" }).focus();
    await press("Enter");
    await expectEventually(async () => (await focused()) === "Message");
    await expectEventually(async () => (await topicValue()) === "beta");
    // Typed letters are text there, not shortcuts.
    await hamlet.page.keyboard.type("in");
    expect(await hamlet.page.getByLabel("Message", { exact: true }).inputValue()).to.equal("in");
    await hamlet.page.getByLabel("Message", { exact: true }).fill("");
    await press("Escape");
    await heading("#Denmark");
    // Enter on a link follows it (no reply).
    await hamlet.page
      .getByRole("navigation", { name: "Channels" })
      .getByRole("link", { name: "Verona" })
      .focus();
    await press("Enter");
    await heading("#Verona");
    expect(await focused()).not.to.equal("Message");
  });

  it("n opens the next unread topic, p the next unread direct message", async function () {
    const { othello: o, desdemona: d } = realm.users;
    // By the sidebar, as a person would.
    await hamlet.page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Inbox" }).click();
    await heading("Inbox");
    await sendToChannel(o!, ids.Verona!, "ides of march", "Beware");
    await sendDirect(d!, [realm.users.hamlet!], "A private word");
    await hamlet.page.getByRole("link", { name: "ides of march" }).waitFor();
    await blur();
    await press("n");
    await heading("#Verona › ides of march");
    await messages(hamlet.page).filter({ hasText: "Beware" }).waitFor();
    await press("p");
    await heading("Direct messages with Desdemona Dane");
    await messages(hamlet.page).filter({ hasText: "A private word" }).waitFor();
  });

  it("/ goes to the search box, Esc leaves it, i opens the inbox", async function () {
    await blur();
    await press("/");
    expect(await focused()).to.equal("Search");
    await hamlet.page.keyboard.type("i");
    expect(await hamlet.page.getByRole("searchbox", { name: "Search" }).inputValue()).to.equal("i");
    await press("Escape");
    expect(await focused()).to.equal("BODY");
    await press("i");
    await heading("Inbox");
  });

  it("never takes the focus back late, after the person moved it elsewhere", async function () {
    // A busy page runs timers late (the CI's did): a shortcut's deferred focus must not then
    // pull the person back into the compose box from wherever they went meanwhile.
    await hamlet.page.goto(`${server.url}/#narrow/channel/${ids.Denmark}-Denmark`);
    await heading("#Denmark");
    const verona = hamlet.page
      .getByRole("navigation", { name: "Channels" })
      .getByRole("link", { name: "Verona" });
    await hamlet.page.evaluate(`(() => {
      const now = window.setTimeout;
      window.realSetTimeout = now;
      window.setTimeout = (f, ms, ...rest) => now(f, (ms ?? 0) + 300, ...rest);
    })()`);
    // Timers run in the order they fall due: this one runs after any the keys started.
    const timersRun = () => hamlet.page.evaluate("new Promise((done) => setTimeout(done, 0))");
    try {
      await messages(hamlet.page).filter({ hasText: "beta 1" }).focus();
      await press("Enter");
      expect(await focused()).to.equal("Message");
      await verona.focus();
      await timersRun();
      expect(await focused()).to.equal("Verona");

      await blur();
      await press("x");
      await verona.focus();
      await timersRun();
      expect(await focused()).to.equal("Verona");
    } finally {
      await hamlet.page.evaluate("window.setTimeout = window.realSetTimeout");
    }
    // Unhurried, x still lands in the To field once it is drawn.
    await press("Escape");
    await blur();
    await press("x");
    await expectEventually(async () => (await focused()) === "To");
    await press("Escape");
  });
});

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
import { expectEventually } from "../helpers/web-views.js";
import type { TestRealm } from "../helpers/factories.js";
import { ROLE } from "../../src/world/roles.js";

describe("web client: two people chat in two browsers", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let othello: Person;
  let denmarkId: number;

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
    const owner = realm.users.desdemona!.client;
    expectSuccess(
      await owner.post("/users/me/subscriptions", {
        subscriptions: [{ name: "Denmark", description: "The **castle**" }, { name: "Verona" }],
        principals: [realm.users.hamlet!.id, realm.users.othello!.id, realm.users.desdemona!.id],
      }),
    );
    const streams = expectSuccess(await owner.get("/streams")).streams as Array<{
      stream_id: number;
      name: string;
    }>;
    denmarkId = streams.find((s) => s.name === "Denmark")!.stream_id;
    browser = await launchBrowser();
    hamlet = await logIn(browser, server, realm.users.hamlet!.email, realm.users.hamlet!.password);
    othello = await logIn(browser, server, realm.users.othello!.email, realm.users.othello!.password);
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

  it("lists the subscribed channels and stays logged in across a reload", async function () {
    const channels = hamlet.page.getByRole("navigation", { name: "Channels" });
    expect(await channels.getByRole("link", { name: "Denmark", exact: true }).count()).to.equal(1);
    await hamlet.page.reload();
    await channels.getByRole("link", { name: "Verona", exact: true }).waitFor();
  });

  it("sends to a channel and topic; the other person sees it at once, counted unread until read", async function () {
    const denmarkLink = othello.page
      .getByRole("navigation", { name: "Channels" })
      .getByRole("link", { name: "Denmark", exact: true });
    const count = async () => {
      const id = await denmarkLink.getAttribute("aria-describedby");
      return id === null ? 0 : Number(await othello.page.locator(`#${id}`).textContent());
    };
    // The channel's creation was announced in it: one unread message already.
    const before = await count();
    expect(before).to.equal(1);
    await hamlet.page
      .getByRole("navigation", { name: "Channels" })
      .getByRole("link", { name: "Denmark", exact: true })
      .click();
    await hamlet.page.getByLabel("Topic", { exact: true }).fill("castle");
    await hamlet.page
      .getByLabel("Message", { exact: true })
      .fill("Something is rotten in the state of Denmark");
    await hamlet.page.getByRole("button", { name: "Send" }).click();
    await messages(hamlet.page).filter({ hasText: "Something is rotten" }).waitFor();

    // Othello is on his inbox: the count grows without a reload.
    await expectEventually(async () => (await count()) === before + 1);
    await othello.page.getByRole("link", { name: "castle" }).first().click();
    await messages(othello.page).filter({ hasText: "Something is rotten" }).waitFor();
    // Seen with the window focused: marked read, the count goes back down.
    await othello.page.bringToFront();
    await expectEventually(async () => (await count()) === before);
  });

  it("sends a direct message to a person chosen by name; it arrives live in their DM list", async function () {
    await hamlet.page.goto(`${server.url}/#inbox`);
    await hamlet.page.keyboard.press("x");
    const to = hamlet.page.getByRole("combobox", { name: "To", exact: true });
    await to.fill("Othel");
    await hamlet.page.getByRole("option", { name: /Othello Dane/ }).click();
    await hamlet.page.getByLabel("Message", { exact: true }).fill("My lord, a word in private.");
    await hamlet.page.getByRole("button", { name: "Send" }).click();
    const dms = othello.page.getByRole("navigation", { name: "Direct messages" });
    await dms.getByRole("link", { name: "Hamlet Dane" }).waitFor();
    await dms.getByRole("link", { name: "Hamlet Dane" }).click();
    await messages(othello.page).filter({ hasText: "a word in private" }).waitFor();
    expect(await othello.page.getByRole("heading", { level: 1 }).textContent()).to.equal(
      "Direct messages with Hamlet Dane",
    );
  });

  it("reacts through the emoji picker (Enter picks the first match); the other sees who reacted", async function () {
    const article = messages(hamlet.page).filter({ hasText: "a word in private" });
    await hamlet.page.goto(`${server.url}/#narrow/dm/${realm.users.othello!.id}-Othello-Dane`);
    await article.hover();
    await article.getByRole("button", { name: "Add reaction" }).click();
    await hamlet.page.getByRole("searchbox", { name: "Search emoji" }).fill("tada");
    await hamlet.page.getByRole("searchbox", { name: "Search emoji" }).press("Enter");
    const reaction = article.getByRole("button", { name: /^tada: You$/ });
    await reaction.waitFor();
    expect(await reaction.getAttribute("aria-pressed")).to.equal("true");
    await messages(othello.page)
      .filter({ hasText: "a word in private" })
      .getByRole("button", { name: /^tada: Hamlet Dane$/ })
      .waitFor();
    // Clicking one's own reaction takes it back, everywhere.
    await reaction.click();
    await messages(othello.page)
      .filter({ hasText: "a word in private" })
      .getByRole("button", { name: /^tada:/ })
      .waitFor({ state: "detached" });
  });

  it("edits, stars and deletes one's own message", async function () {
    await hamlet.page.goto(`${server.url}/#narrow/channel/${denmarkId}-Denmark/topic/castle`);
    const mine = messages(hamlet.page).filter({ hasText: "Something is rotten" });
    await mine.hover();
    await mine.getByRole("button", { name: "Edit" }).click();
    const editor = hamlet.page.getByRole("textbox", { name: "Edit message" });
    await editor.fill("Something is **rotten** in the state of Denmark!");
    await hamlet.page.getByRole("button", { name: "Save" }).click();
    await mine.locator("strong", { hasText: "rotten" }).waitFor();
    await othello.page.goto(`${server.url}/#narrow/channel/${denmarkId}-Denmark/topic/castle`);
    const theirs = messages(othello.page).filter({ hasText: "Something is rotten" });
    await theirs.getByText("(edited)").waitFor();

    await theirs.hover();
    const star = theirs.getByRole("button", { name: "Star" });
    await star.click();
    await expectEventually(async () => (await star.getAttribute("aria-pressed")) === "true");
    await othello.page.getByRole("link", { name: "Starred" }).click();
    await messages(othello.page).filter({ hasText: "Something is rotten" }).waitFor();

    expectSuccess(
      await realm.users.hamlet!.client.post("/messages", {
        type: "stream",
        to: denmarkId,
        topic: "castle",
        content: "A slip of the tongue",
      }),
    );
    const slip = messages(hamlet.page).filter({ hasText: "A slip of the tongue" });
    await slip.waitFor();
    await slip.hover();
    await slip.getByRole("button", { name: "Delete" }).click();
    await slip.waitFor({ state: "detached" });
    expect(await messages(othello.page).filter({ hasText: "A slip of the tongue" }).count()).to.equal(0);
  });

  it("finds messages with the search box and Zulip's operators", async function () {
    const search = hamlet.page.getByRole("searchbox", { name: "Search" });
    await search.fill("rotten");
    await search.press("Enter");
    // The view before (a topic) may hold the word too: wait for the search's own view.
    await hamlet.page.getByRole("heading", { level: 1, name: "Search: rotten" }).waitFor();
    await messages(hamlet.page).filter({ hasText: "rotten" }).waitFor();
    expect(await hamlet.page.getByRole("heading", { level: 1 }).textContent()).to.equal("Search: rotten");
    await search.fill("channel:Verona");
    await search.press("Enter");
    await hamlet.page.getByRole("heading", { level: 1, name: "#Verona" }).waitFor();
    expect(hamlet.page.url()).to.contain(`#narrow/channel/`);
  });

  it("uploads a file by the button and a pasted image; both appear in the sent message", async function () {
    await hamlet.page.goto(`${server.url}/#narrow/channel/${denmarkId}-Denmark/topic/files`);
    await hamlet.page
      .getByLabel("Upload files")
      .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("to be or not") });
    const text = hamlet.page.getByLabel("Message", { exact: true });
    await expectEventually(async () => (await text.inputValue()).includes("/user_uploads/"));
    expect(await text.inputValue()).to.match(/^\[notes\.txt\]\(\/user_uploads\/\d+\/[^)]+\/notes\.txt\)/);
    // A pasted image (as from a screenshot tool): a 1x1 PNG on the clipboard.
    await text.focus();
    // Run in the page (browser globals: a string, since this file compiles for Node).
    await hamlet.page.evaluate(`(() => {
      const png = Uint8Array.from(atob("${PIXEL_PNG}"), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([png], "pasted.png", { type: "image/png" }));
      document.activeElement.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    })()`);
    await expectEventually(async () => (await text.inputValue()).includes("pasted.png"));
    await hamlet.page.getByRole("button", { name: "Send" }).click();
    const sent = messages(hamlet.page).filter({ has: hamlet.page.getByRole("link", { name: "notes.txt" }) });
    await sent.waitFor();
    await sent.locator(".message_inline_image img").waitFor();
    // The file is served to a logged-in browser (its session cookie).
    const href = await sent.getByRole("link", { name: "notes.txt" }).getAttribute("href");
    const body = await hamlet.page.evaluate(`fetch(${JSON.stringify(href)}).then((res) => res.text())`);
    expect(body).to.equal("to be or not");
  });

  it("opens a deep link to a message after logging in", async function () {
    const id = expectSuccess(
      await realm.users.othello!.client.post("/messages", {
        type: "stream",
        to: denmarkId,
        topic: "deep link",
        content: "Here I am",
      }),
    ).id as number;
    const fresh = await logIn(
      browser,
      server,
      realm.users.desdemona!.email,
      realm.users.desdemona!.password,
      {
        hash: `#narrow/channel/${denmarkId}-Denmark/topic/deep.20link/near/${id}`,
      },
    );
    try {
      await messages(fresh.page).filter({ hasText: "Here I am" }).waitFor();
      expect(await fresh.page.getByRole("heading", { level: 1 }).textContent()).to.equal(
        "#Denmark › deep link",
      );
      expect(fresh.problems).to.deep.equal([]);
    } finally {
      await fresh.context.close();
    }
  });

  it("logs out: the login page comes back, and the old session no longer works", async function () {
    const person = await logIn(
      browser,
      server,
      realm.users.desdemona!.email,
      realm.users.desdemona!.password,
    );
    await person.page.getByRole("button", { name: "Personal menu" }).click();
    await person.page.getByRole("button", { name: "Log out" }).click();
    await person.page.getByRole("button", { name: "Log in" }).waitFor();
    // With the browser's cookies (the login page itself may fetch nothing: its CSP says so).
    const res = await person.context.request.get(`${server.url}/json/users/me`);
    expect(res.status()).to.equal(401);
    await person.context.close();
  });
});

/** A 1x1 PNG. */
const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

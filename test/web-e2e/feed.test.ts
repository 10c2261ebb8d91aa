import { expect } from "chai";
import type { Browser, Locator } from "playwright-core";
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
import { upload } from "../helpers/uploads.js";
import {
  checkView,
  descriptionOf,
  expectEventually,
  flagsOf,
  makeChannels,
  sendDirect,
  sendToChannel,
  styleOf,
} from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

/** 1x1 PNG. */
const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** Reading: where a long channel opens, older messages, read state, markers, and what messages hold. */
describe("web client: the message feed", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let ids: Record<string, number>;
  /** The 300 messages of #Archive, oldest first. */
  const archive: number[] = [];

  const hash = (channel: string, topic?: string) =>
    `#narrow/channel/${ids[channel]}-${channel}${topic === undefined ? "" : `/topic/${topic}`}`;
  const open = async (channel: string, topic?: string) => {
    await hamlet.page.goto(`${server.url}/${hash(channel, topic)}`);
    await hamlet.page
      .getByRole("heading", {
        level: 1,
        name: topic === undefined ? `#${channel}` : `#${channel} › ${topic}`,
      })
      .waitFor();
  };
  const entry = (n: number) =>
    messages(hamlet.page).filter({ has: hamlet.page.getByText(`Entry ${n}`, { exact: true }) });
  const feed = () => hamlet.page.getByRole("region", { name: "Messages" });
  const channelLinks = () =>
    hamlet.page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: /^(?!Browse)/ });
  /** Whether an element is at least partly inside the message region's visible box. */
  const onScreen = async (item: Locator) => {
    const box = await item.boundingBox();
    const region = await feed().boundingBox();
    return !!box && !!region && box.y + box.height > region.y && box.y < region.y + region.height;
  };

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
    const { desdemona, hamlet: h, othello: o } = realm.users;
    ids = await makeChannels(
      desdemona!,
      ["Archive", "Denmark", "Verona", "Pinned", "Quiet"].map((name) => ({ name })),
      [desdemona!, h!, o!],
    );
    expectSuccess(await h!.client.post("/mark_stream_as_read", { stream_id: ids.Archive }));
    for (let n = 1; n <= 300; n++)
      archive.push(await sendToChannel(o!, ids.Archive!, "history", `Entry ${n}`));
    // Hamlet has read the first 200 (and the channels' announcements).
    expectSuccess(
      await h!.client.post("/messages/flags", { messages: archive.slice(0, 200), op: "add", flag: "read" }),
    );
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

  it("opens a long channel at the first unread message, marking read only what was seen", async function () {
    await open("Archive");
    await entry(201).waitFor();
    expect(await onScreen(entry(201)), "the first unread message is on screen").to.equal(true);
    await expectEventually(async () => (await flagsOf(realm.users.hamlet!, archive[200]!)).includes("read"));
    // Loaded, but below the window: still unread.
    await entry(250).waitFor({ state: "attached" });
    expect(await onScreen(entry(250))).to.equal(false);
    expect(await flagsOf(realm.users.hamlet!, archive[249]!)).not.to.include("read");
    expect(await flagsOf(realm.users.hamlet!, archive[299]!)).not.to.include("read");
  });

  it("loads older messages while scrolling up, to the beginning of the conversation", async function () {
    expect(await entry(1).count()).to.equal(0);
    // The conversation's drawing is kept as older messages come in above it, not drawn anew
    // (each redrawing cost every message of it, and the old one lingered while avatars loaded).
    type Tagged = { drawnBefore?: boolean };
    await entry(201).evaluate((el: Tagged) => (el.drawnBefore = true));
    await feed().hover();
    const beginning = hamlet.page.getByText("This is the beginning of the conversation.");
    const until = Date.now() + 30_000;
    while (!(await beginning.isVisible()) || !(await onScreen(beginning))) {
      if (Date.now() > until) throw new Error("the beginning never came");
      await hamlet.page.mouse.wheel(0, -4000);
      await hamlet.page.waitForTimeout(100);
    }
    await entry(1).waitFor();
    expect(await onScreen(entry(1))).to.equal(true);
    // Every message once, in order.
    const texts = await messages(hamlet.page).allInnerTexts();
    const numbers = texts
      .map((t) => /Entry (\d+)/.exec(t)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(numbers.slice(0, 5)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(new Set(numbers).size).to.equal(numbers.length);
    expect(await entry(201).evaluate((el: Tagged) => el.drawnBefore)).to.equal(true);
  });

  it('shows a failed fetch of older messages with "Try again", never retrying by itself', async function () {
    let older = 0;
    await hamlet.page.route("**/json/messages?*", async (route) => {
      if (!route.request().url().includes("num_before=100")) return route.continue();
      older++;
      await route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({ result: "error", msg: "Internal server error", code: "BAD_REQUEST" }),
      });
    });
    try {
      await hamlet.page.goto(`${server.url}/${hash("Archive")}/near/${archive[59]}`);
      await entry(60).waitFor();
      await feed().hover();
      const failed = feed().getByRole("alert").filter({ hasText: "Messages could not be loaded" });
      while (!(await failed.isVisible())) await hamlet.page.mouse.wheel(0, -2000);
      // More scrolling does not try again either: only the person's "Try again" does.
      await hamlet.page.mouse.wheel(0, -2000);
      const tries = older;
      expect(tries).to.equal(1);
      // Something else happens (an event comes and is drawn): the failed fetch was not made again meanwhile.
      await sendToChannel(realm.users.othello!, ids.Denmark!, "meanwhile", "Meanwhile");
      await hamlet.page
        .getByRole("navigation", { name: "Channels" })
        .getByRole("link", { name: "Denmark" })
        .waitFor();
      await expectEventually(
        async () => (await descriptionOf(channelLinks().filter({ hasText: "Denmark" }))) !== "",
      );
      expect(older).to.equal(tries);
    } finally {
      await hamlet.page.unroute("**/json/messages?*");
    }
    await feed().getByRole("button", { name: "Try again" }).click();
    await entry(1).waitFor();
    await feed().getByRole("alert").waitFor({ state: "detached" });
    // The failures were reported (500s the test made); nothing else went wrong.
    const expected = (p: string) => p.includes("status of 500");
    expect(hamlet.problems.filter((p) => !expected(p))).to.deep.equal([]);
    hamlet.problems.splice(0);
  });

  it("marks the whole channel read with 'Mark all as read'", async function () {
    const link = channelLinks().filter({ hasText: "Archive" });
    expect(Number(await descriptionOf(link))).to.be.greaterThan(0);
    await hamlet.page.getByRole("button", { name: "Mark all as read" }).click();
    await expectEventually(async () => (await descriptionOf(link)) === "");
    expect(await flagsOf(realm.users.hamlet!, archive[299]!)).to.include("read");
  });

  it("draws every message view with one h1, focus rings and named controls", async function () {
    await sendDirect(realm.users.othello!, [realm.users.hamlet!], "A word, my lord");
    const views: Array<[string, string]> = [
      [hash("Denmark"), "#Denmark"],
      ["#feed", "All messages"],
      ["#narrow/is/mentioned", "Mentions"],
      ["#narrow/is/starred", "Starred messages"],
      [`#narrow/dm/${realm.users.othello!.id}-Othello-Dane`, "Direct messages with Othello Dane"],
      ["#narrow/search/Entry", "Search: Entry"],
      ["#recent", "Recent conversations"],
      ["#inbox", "Inbox"],
    ];
    for (const [fragment, heading] of views) {
      await hamlet.page.goto(`${server.url}/${fragment}`);
      await checkView(hamlet.page, heading);
    }
  });

  it("marks edited and moved messages, live", async function () {
    const o = realm.users.othello!;
    const edited = await sendToChannel(o, ids.Denmark!, "markers", "First thoughts");
    const moved = await sendToChannel(o, ids.Denmark!, "markers", "Wandering words");
    await open("Denmark");
    const first = messages(hamlet.page).filter({ hasText: "First thoughts" });
    const second = messages(hamlet.page).filter({ hasText: "Wandering words" });
    await second.waitFor();
    expectSuccess(await o.client.patch(`/messages/${edited}`, { content: "First thoughts, revised" }));
    await first.filter({ hasText: "revised" }).getByText("(edited)").waitFor();
    expectSuccess(
      await o.client.patch(`/messages/${moved}`, { topic: "elsewhere", propagate_mode: "change_one" }),
    );
    await second.getByText("(moved)").waitFor();
    expect(await second.getByText("(edited)").count()).to.equal(0);
    // It now sits under its new topic's header.
    await feed()
      .getByRole("heading", { name: /Denmark.*elsewhere/ })
      .waitFor();
  });

  it("opens and closes a spoiler, by mouse and keyboard", async function () {
    await sendToChannel(
      realm.users.othello!,
      ids.Denmark!,
      "spoilers",
      "```spoiler The ending\nEveryone dies\n```",
    );
    await open("Denmark", "spoilers");
    const header = feed().getByRole("button", { name: "The ending" });
    const hidden = feed().getByText("Everyone dies");
    await header.waitFor();
    expect(await header.getAttribute("aria-expanded")).to.equal("false");
    expect(await hidden.isVisible()).to.equal(false);
    await header.click();
    await hidden.waitFor();
    expect(await header.getAttribute("aria-expanded")).to.equal("true");
    await header.click();
    await hidden.waitFor({ state: "hidden" });
    await header.focus();
    await hamlet.page.keyboard.press("Enter");
    await hidden.waitFor();
    // Enter on the spoiler opened it; it did not start a reply.
    expect(await hamlet.page.evaluate("document.activeElement?.getAttribute('role')")).to.equal("button");
    await hamlet.page.keyboard.press(" ");
    await hidden.waitFor({ state: "hidden" });
  });

  it("shows an uploaded image's preview, named by its file", async function () {
    const url = await upload(realm.users.othello!, "tiny.png", Buffer.from(PIXEL_PNG, "base64"), "image/png");
    const id = await sendToChannel(realm.users.othello!, ids.Denmark!, "pictures", `[tiny.png](${url})`);
    // Until its thumbnail is made the preview is the server's loading placeholder (which it does not serve).
    await expectEventually(async () =>
      (
        expectSuccess(await realm.users.othello!.client.get(`/messages/${id}`)).message as { content: string }
      ).content.includes("/user_uploads/thumbnail/"),
    );
    await open("Denmark", "pictures");
    const image = messages(hamlet.page).last().getByRole("img", { name: "tiny.png" });
    await image.waitFor();
    await expectEventually(
      async () => (await image.evaluate((img: { naturalWidth: number }) => img.naturalWidth)) > 0,
    );
    await checkView(hamlet.page, "#Denmark › pictures", 0);
  });

  it("opens a #channel>topic link of a message in the app, in the same page", async function () {
    await sendToChannel(realm.users.othello!, ids.Verona!, "bridge", "Two households");
    await sendToChannel(realm.users.othello!, ids.Denmark!, "links", "Go to #**Verona>bridge** now");
    await open("Denmark", "links");
    let pages = 0;
    hamlet.context.on("page", () => pages++);
    await messages(hamlet.page).getByRole("link", { name: "#Verona > bridge" }).click();
    await hamlet.page.getByRole("heading", { level: 1, name: "#Verona › bridge" }).waitFor();
    await messages(hamlet.page).filter({ hasText: "Two households" }).waitFor();
    expect(pages).to.equal(0);
    expect(hamlet.page.url()).to.contain(`#narrow/channel/${ids.Verona}-Verona/topic/bridge`);
  });

  it("keeps a view chosen before the last channel opened had tidied its URL", async function () {
    await open("Denmark");
    // The person opens #Verona by an untidy link and at once their settings; the settings'
    // hashchange is still queued when the channel's view rewrites the URL to its canonical form.
    await hamlet.page.evaluate(`(async () => {
      const routed = new Promise((done) => addEventListener("hashchange", done, { once: true }));
      location.hash = "#narrow/stream/Verona";
      await routed;
      history.pushState(null, "", "#settings/notifications");
      await new Promise((done) => setTimeout(done, 400));
      dispatchEvent(new HashChangeEvent("hashchange"));
    })()`);
    await hamlet.page.getByRole("heading", { level: 1, name: "Personal settings" }).waitFor();
    expect(new URL(hamlet.page.url()).hash).to.equal("#settings/notifications");
  });

  it("lists the open channel's topics with their unread counts", async function () {
    await sendToChannel(realm.users.othello!, ids.Verona!, "balcony", "Wherefore");
    await open("Verona", "bridge");
    const topics = hamlet.page.getByRole("list", { name: "Topics in Verona" });
    const balcony = topics.getByRole("link", { name: "balcony", exact: true });
    await balcony.waitFor();
    await expectEventually(async () => (await descriptionOf(balcony)) === "1");
    await sendToChannel(realm.users.othello!, ids.Verona!, "balcony", "art thou");
    await expectEventually(async () => (await descriptionOf(balcony)) === "2");
    expect(
      await topics.getByRole("link", { name: "bridge", exact: true }).getAttribute("aria-current"),
    ).to.equal("page");
    await balcony.click();
    await hamlet.page.getByRole("heading", { level: 1, name: "#Verona › balcony" }).waitFor();
    await expectEventually(async () => (await descriptionOf(balcony)) === "");
  });

  it("dims a muted channel and puts pinned channels first (both set elsewhere, live)", async function () {
    const h = realm.users.hamlet!;
    const names = async () =>
      (await channelLinks().allInnerTexts())
        .map((t) => t.split("\n")[0]!.trim())
        .filter((name) => name in ids);
    expect((await names())[0]).to.equal("Archive");
    expectSuccess(
      await h.client.post("/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([
          { stream_id: ids.Pinned, property: "pin_to_top", value: true },
          { stream_id: ids.Quiet, property: "is_muted", value: true },
        ]),
      }),
    );
    await expectEventually(async () => (await names())[0] === "Pinned");
    const quiet = channelLinks().filter({ hasText: "Quiet" });
    await expectEventually(async () => (await descriptionOf(quiet)).includes("muted"));
    const opacity = Number(await styleOf(quiet, "opacity"));
    expect(opacity).to.be.lessThan(1);
    const loud = channelLinks().filter({ hasText: "Verona" });
    expect(Number(await styleOf(loud, "opacity"))).to.equal(1);
  });

  it("takes away, live, a message someone else deleted", async function () {
    const id = await sendToChannel(realm.users.othello!, ids.Denmark!, "deleted", "Words to regret");
    await open("Denmark", "deleted");
    const doomed = messages(hamlet.page).filter({ hasText: "Words to regret" });
    await doomed.waitFor();
    expectSuccess(await realm.users.desdemona!.client.delete(`/messages/${id}`));
    await doomed.waitFor({ state: "detached" });
  });

  it("shows a sender's initials until their picture has loaded, then the picture over them", async function () {
    await sendToChannel(realm.users.othello!, ids.Denmark!, "portraits", "A likeness");
    // A page of its own: no picture request of the other tests is still pending in it.
    const h = realm.users.hamlet!;
    const viewer = await logIn(browser, server, h.email, h.password);
    try {
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      await viewer.page.route(
        (url) => url.hostname === "secure.gravatar.com",
        async (route) => {
          await answered;
          await route.fulfill({ contentType: "image/png", body: Buffer.from(PIXEL_PNG, "base64") });
        },
      );
      await viewer.page.goto(`${server.url}/${hash("Denmark", "portraits")}`);
      const avatar = messages(viewer.page)
        .filter({ hasText: "A likeness" })
        .getByRole("button", { name: "Profile of Othello Dane" });
      await avatar.waitFor();
      type Img = { complete: boolean; naturalWidth: number };
      const pictureShown = () =>
        avatar.locator("img").evaluate((img: Img) => img.complete && img.naturalWidth > 0);
      /** What is drawn at the avatar's centre (the topmost element there). */
      const atCentre = () =>
        avatar.evaluate(
          (el: {
            getBoundingClientRect(): { x: number; y: number; width: number; height: number };
            ownerDocument: { elementFromPoint(x: number, y: number): { tagName: string } | null };
          }) => {
            const box = el.getBoundingClientRect();
            return el.ownerDocument.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)?.tagName;
          },
        );
      expect(await avatar.innerText()).to.equal("OD");
      expect(await pictureShown()).to.equal(false);
      expect(await atCentre()).to.equal("SPAN");
      answer();
      await expectEventually(pictureShown);
      expect(await atCentre()).to.equal("IMG");
    } finally {
      await viewer.context.close();
    }
    expect(viewer.problems).to.deep.equal([]);
  });
});

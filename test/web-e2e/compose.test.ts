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
import { setRealmFields } from "../helpers/channels.js";
import { checkView, expectEventually, makeChannels, sendToChannel } from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

/** The compose box: keys, autocomplete, preview, typing notices, drafts, quotes and files. */
describe("web client: compose", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let othello: Person;
  let ids: Record<string, number>;

  const topicUrl = (channel: string, topic: string) =>
    `${server.url}/#narrow/channel/${ids[channel]}-${channel}/topic/${topic}`;
  const message = (page: Page) => page.getByLabel("Message", { exact: true });
  const send = (page: Page) => page.getByRole("button", { name: "Send" });
  /** Opens a topic with an empty compose box, the view drawn. */
  const openTopic = async (page: Page, channel: string, topic: string) => {
    await page.goto(topicUrl(channel, topic));
    await page.getByRole("heading", { level: 1, name: `#${channel} › ${topic}` }).waitFor();
    await message(page).fill("");
  };

  before(async function () {
    requireBrowser(this);
    server = await startTestServer({ max_file_upload_size_mib: 1 });
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
    const { desdemona, hamlet: h, othello: o } = realm.users;
    ids = await makeChannels(desdemona!, [{ name: "Denmark" }, { name: "Verona" }], [desdemona!, h!, o!]);
    await sendToChannel(o!, ids.Verona!, "balcony", "Wherefore art thou");
    await sendToChannel(o!, ids.Verona!, "bridge", "Two households");
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

  it("draws a topic view with its compose box: one h1, focus rings, every control named", async function () {
    await openTopic(hamlet.page, "Denmark", "keys");
    await checkView(hamlet.page, "#Denmark › keys", 25);
  });

  it("with enter_sends off, Enter adds a line and Ctrl+Enter sends", async function () {
    expectSuccess(await realm.users.hamlet!.client.patch("/settings", { enter_sends: false }));
    await openTopic(hamlet.page, "Denmark", "keys");
    await hamlet.page.getByText("Ctrl+Enter to send").waitFor();
    await message(hamlet.page).pressSequentially("line one");
    await message(hamlet.page).press("Enter");
    await message(hamlet.page).pressSequentially("line two");
    expect(await message(hamlet.page).inputValue()).to.equal("line one\nline two");
    await message(hamlet.page).press("Control+Enter");
    const sent = messages(hamlet.page).filter({ hasText: "line two" });
    await sent.waitFor();
    expect(await sent.getByText("line one").innerText()).to.match(/^line one\nline two$/);
    expect(await message(hamlet.page).inputValue()).to.equal("");
  });

  it("with enter_sends on, Enter sends, Shift+Enter adds a line and Ctrl+Enter still sends", async function () {
    expectSuccess(await realm.users.hamlet!.client.patch("/settings", { enter_sends: true }));
    await hamlet.page.getByText("Enter to send, Shift+Enter for a new line").waitFor();
    await message(hamlet.page).pressSequentially("first");
    await message(hamlet.page).press("Shift+Enter");
    await message(hamlet.page).pressSequentially("second");
    expect(await message(hamlet.page).inputValue()).to.equal("first\nsecond");
    await message(hamlet.page).press("Enter");
    await messages(hamlet.page).filter({ hasText: "second" }).waitFor();
    expect(await message(hamlet.page).inputValue()).to.equal("");
    await message(hamlet.page).pressSequentially("third");
    await message(hamlet.page).press("Control+Enter");
    await messages(hamlet.page).filter({ hasText: "third" }).waitFor();
    expectSuccess(await realm.users.hamlet!.client.patch("/settings", { enter_sends: false }));
    await hamlet.page.getByText("Ctrl+Enter to send").waitFor();
  });

  it("completes @-mentions by keyboard; the mention is rendered and reaches the person", async function () {
    await openTopic(hamlet.page, "Denmark", "mentions");
    await message(hamlet.page).pressSequentially("Hark @oth");
    const suggestions = hamlet.page.getByRole("listbox", { name: "Suggestions" });
    await suggestions.getByRole("option", { name: /Othello Dane/ }).waitFor();
    expect(await suggestions.getByRole("option").first().getAttribute("aria-selected")).to.equal("true");
    await message(hamlet.page).press("Enter");
    const othelloId = realm.users.othello!.id;
    expect(await message(hamlet.page).inputValue()).to.equal(`Hark @**Othello Dane|${othelloId}** `);
    await suggestions.waitFor({ state: "detached" });
    await message(hamlet.page).pressSequentially("my lord");
    await send(hamlet.page).click();
    const sent = messages(othello.page).filter({ hasText: "my lord" });
    await othello.page.goto(topicUrl("Denmark", "mentions"));
    await sent.getByText("@Othello Dane", { exact: true }).waitFor();
    await othello.page
      .getByRole("navigation", { name: "Views" })
      .getByRole("link", { name: "Mentions" })
      .click();
    await messages(othello.page).filter({ hasText: "my lord" }).waitFor();
  });

  it("completes #channel and its topic (#**channel>topic**) with the mouse and the keyboard", async function () {
    await openTopic(hamlet.page, "Denmark", "links");
    await message(hamlet.page).pressSequentially("See #Ver");
    const suggestions = hamlet.page.getByRole("listbox", { name: "Suggestions" });
    await suggestions.getByRole("option", { name: /^#Verona/ }).click();
    expect(await message(hamlet.page).inputValue()).to.equal("See #**Verona** ");
    // Zulip's topic jump: ">" right after a completed channel asks for its topics.
    await message(hamlet.page).press(">");
    await suggestions.getByRole("option", { name: /^balcony/ }).waitFor();
    await message(hamlet.page).pressSequentially("bri");
    await suggestions.getByRole("option", { name: /^bridge/ }).waitFor();
    expect(await suggestions.getByRole("option").count()).to.equal(1);
    await message(hamlet.page).press("Tab");
    expect(await message(hamlet.page).inputValue()).to.equal("See #**Verona>bridge** ");
    await send(hamlet.page).click();
    const sent = messages(hamlet.page).filter({ hasText: "See" });
    await sent.getByRole("link", { name: "#Verona > bridge" }).waitFor();
  });

  it("completes :emoji: by keyboard (arrows choose) and by mouse", async function () {
    await openTopic(hamlet.page, "Denmark", "emoji");
    const suggestions = hamlet.page.getByRole("listbox", { name: "Suggestions" });
    // Suggestions close when focus leaves the box, and come back with typing.
    await message(hamlet.page).pressSequentially(":tad");
    await suggestions.waitFor();
    await hamlet.page.getByRole("heading", { level: 1 }).click();
    await suggestions.waitFor({ state: "detached" });
    await message(hamlet.page).fill("");
    await message(hamlet.page).pressSequentially("Bravo :tad");
    await suggestions.getByRole("option", { name: /:tada:/ }).waitFor();
    await message(hamlet.page).press("Enter");
    expect(await message(hamlet.page).inputValue()).to.equal("Bravo :tada: ");
    await message(hamlet.page).pressSequentially(":octo");
    await suggestions.getByRole("option", { name: /:octopus:/ }).click();
    expect(await message(hamlet.page).inputValue()).to.equal("Bravo :tada: :octopus: ");
    await send(hamlet.page).click();
    const sent = messages(hamlet.page).filter({ hasText: "Bravo" });
    await sent.getByRole("img", { name: "tada" }).waitFor();
    await sent.getByRole("img", { name: "octopus" }).waitFor();
  });

  it("previews the Markdown, and goes back to writing with the text kept", async function () {
    await openTopic(hamlet.page, "Denmark", "preview");
    await message(hamlet.page).fill("Some **bold** words");
    await hamlet.page.getByRole("button", { name: "Preview" }).click();
    const preview = hamlet.page.getByRole("region", { name: "Preview" });
    await preview.locator("strong", { hasText: "bold" }).waitFor();
    await hamlet.page.getByRole("button", { name: "Write" }).click();
    expect(await message(hamlet.page).inputValue()).to.equal("Some **bold** words");
    await message(hamlet.page).fill("");
  });

  it("shows the other person 'X is typing…' and takes it away when the message is sent", async function () {
    await openTopic(othello.page, "Denmark", "typing");
    await openTopic(hamlet.page, "Denmark", "typing");
    await message(hamlet.page).pressSequentially("To be");
    const notice = othello.page.getByRole("status").filter({ hasText: "Hamlet Dane is typing…" });
    await notice.waitFor();
    await send(hamlet.page).click();
    await messages(othello.page).filter({ hasText: "To be" }).waitFor();
    await notice.waitFor({ state: "detached" });
  });

  it("keeps an unsent draft across a reload, and on the server when drafts are synchronized", async function () {
    await openTopic(hamlet.page, "Verona", "drafts");
    await message(hamlet.page).fill("A draft to keep");
    await hamlet.page.reload();
    await hamlet.page.getByRole("heading", { level: 1, name: "#Verona › drafts" }).waitFor();
    expect(await message(hamlet.page).inputValue()).to.equal("A draft to keep");
    expect(await hamlet.page.getByLabel("Topic", { exact: true }).inputValue()).to.equal("drafts");
    // enable_drafts_synchronization is on by default: the text is a draft every client sees.
    const drafts = async () =>
      expectSuccess(await realm.users.hamlet!.client.get("/drafts")).drafts as Array<{
        content: string;
        topic: string;
        to: number[];
      }>;
    await expectEventually(async () => (await drafts()).some((d) => d.content === "A draft to keep"));
    const draft = (await drafts()).find((d) => d.content === "A draft to keep")!;
    expect(draft).to.include({ topic: "drafts" });
    expect(draft.to).to.deep.equal([ids.Verona]);
    await send(hamlet.page).click();
    await messages(hamlet.page).filter({ hasText: "A draft to keep" }).waitFor();
    await expectEventually(async () => (await drafts()).length === 0);
    await hamlet.page.reload();
    await hamlet.page.getByRole("heading", { level: 1, name: "#Verona › drafts" }).waitFor();
    expect(await message(hamlet.page).inputValue()).to.equal("");
  });

  it("quotes and replies: Zulip's quote syntax, sent as a quote", async function () {
    const id = await sendToChannel(realm.users.othello!, ids.Denmark!, "quotes", "Put out the *light*");
    await openTopic(hamlet.page, "Denmark", "quotes");
    const original = messages(hamlet.page).filter({ hasText: "Put out the light" });
    await original.hover();
    await original.getByRole("button", { name: "Quote and reply" }).click();
    const o = realm.users.othello!;
    const link = `${server.url}/#narrow/channel/${ids.Denmark}-Denmark/topic/quotes/near/${id}`;
    await expectEventually(async () => (await message(hamlet.page).inputValue()).includes("```quote"));
    expect(await message(hamlet.page).inputValue()).to.equal(
      `@_**Othello Dane|${o.id}** [said](${link}):\n\`\`\`quote\nPut out the *light*\n\`\`\`\n`,
    );
    expect(await hamlet.page.evaluate("document.activeElement?.getAttribute('aria-label')")).to.equal(
      "Message",
    );
    await message(hamlet.page).press("End");
    await message(hamlet.page).pressSequentially("And then put out the light.");
    await send(hamlet.page).click();
    const reply = messages(hamlet.page).filter({ hasText: "And then put out the light." });
    await reply.getByRole("blockquote").getByText("Put out the light").waitFor();
  });

  it("uploads a file dropped on the compose box", async function () {
    await openTopic(hamlet.page, "Denmark", "files");
    const dropped = await hamlet.page.evaluateHandle(`(() => {
      const data = new DataTransfer();
      data.items.add(new File(["dropped text"], "dropped.txt", { type: "text/plain" }));
      return data;
    })()`);
    const form = hamlet.page.getByRole("form", { name: "Compose message" });
    await form.dispatchEvent("dragover", { dataTransfer: dropped });
    await form.dispatchEvent("drop", { dataTransfer: dropped });
    await expectEventually(async () => (await message(hamlet.page).inputValue()).includes("dropped.txt"));
    expect(await message(hamlet.page).inputValue()).to.match(
      /^\[dropped\.txt\]\(\/user_uploads\/\d+\/[^)]+\/dropped\.txt\)\n$/,
    );
    await message(hamlet.page).fill("");
  });

  it("shows an upload's progress bar until it is done", async function () {
    await openTopic(hamlet.page, "Denmark", "files");
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await hamlet.page.route("**/json/user_uploads", async (route) => {
      await held;
      await route.continue();
    });
    try {
      await hamlet.page.getByLabel("Upload files").setInputFiles({
        name: "slow.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("slowly"),
      });
      await hamlet.page.getByRole("progressbar", { name: "Uploading slow.txt" }).waitFor();
      release();
      await hamlet.page
        .getByRole("progressbar", { name: "Uploading slow.txt" })
        .waitFor({ state: "detached" });
      expect(await message(hamlet.page).inputValue()).to.contain("slow.txt");
    } finally {
      release();
      await hamlet.page.unroute("**/json/user_uploads");
      await message(hamlet.page).fill("");
    }
  });

  it("refuses a file larger than the server takes, saying so, without uploading it", async function () {
    await openTopic(hamlet.page, "Denmark", "files");
    let uploads = 0;
    const count = (request: { url(): string }) => {
      if (request.url().includes("/json/user_uploads")) uploads++;
    };
    hamlet.page.on("request", count);
    await hamlet.page.getByLabel("Upload files").setInputFiles({
      name: "huge.bin",
      mimeType: "application/octet-stream",
      buffer: Buffer.alloc(1024 * 1024 + 1),
    });
    await hamlet.page
      .getByRole("status")
      .filter({ hasText: "huge.bin is larger than 1 MiB, the largest file this server takes." })
      .waitFor();
    hamlet.page.off("request", count);
    expect(uploads).to.equal(0);
    expect(await message(hamlet.page).inputValue()).to.equal("");
  });

  it("refuses to send without a topic where the organization requires topics", async function () {
    await setRealmFields(server, realm, { mandatory_topics: true });
    await hamlet.page.goto(`${server.url}/#narrow/channel/${ids.Verona}-Verona`);
    await hamlet.page.reload();
    await hamlet.page.getByRole("heading", { level: 1, name: "#Verona" }).waitFor();
    await hamlet.page.getByLabel("Topic", { exact: true }).fill("");
    await message(hamlet.page).fill("No topic here");
    await send(hamlet.page).click();
    await hamlet.page
      .getByRole("alert")
      .filter({ hasText: "Topics are required in this organization." })
      .waitFor();
    await hamlet.page.getByLabel("Topic", { exact: true }).fill("now with a topic");
    await send(hamlet.page).click();
    await messages(hamlet.page).filter({ hasText: "No topic here" }).waitFor();
    expect(await hamlet.page.getByRole("alert").count()).to.equal(0);
    const stored = expectSuccess(
      await realm.users.hamlet!.client.get("/messages", {
        anchor: "newest",
        num_before: 5,
        num_after: 0,
        narrow: JSON.stringify([{ operator: "channel", operand: ids.Verona }]),
      }),
    ).messages as Array<{ subject: string; content: string }>;
    expect(stored.filter((m) => m.content.includes("No topic here")).map((m) => m.subject)).to.deep.equal([
      "now with a topic",
    ]);
  });
});

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
import { upload } from "../helpers/uploads.js";
import { ROLE } from "../../src/world/roles.js";

/**
 * Every value people write is hostile: only the server's sanitized HTML is inserted as
 * HTML, everything else as text. Each payload, if it ran, would set window.__pwned (or
 * open a dialog); the page's CSP would also report an inline script it blocked.
 */
const PAYLOADS = [
  `<img src=x onerror="window.__pwned='img'">`,
  `<script>window.__pwned='script'</script>`,
  `"><svg onload="window.__pwned='svg'">`,
  `<a href="javascript:window.__pwned='href'">link</a>`,
  `<iframe srcdoc="<script>parent.__pwned='frame'</script>"></iframe>`,
];
const ALL = PAYLOADS.join(" ");
const HOSTILE_NAME = "Iago <svg/onload=window.__pwned=1 ' onfocus='window.__pwned=2' &amp;";

describe("web client: hostile content never runs", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let victim: Person;
  const dialogs: string[] = [];

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, iago: ROLE.MEMBER, hamlet: ROLE.MEMBER });
    const iago = realm.users.iago!;
    const hostileChannel = `evil ${PAYLOADS[0]}`.slice(0, 60);
    // The attacker names everything they can: channel, description, topic, own name, status, file name.
    expectSuccess(
      await realm.users.desdemona!.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: hostileChannel, description: ALL }],
        principals: [iago.id, realm.users.hamlet!.id],
      }),
    );
    // Names refuse > and " (as Zulip's): an open tag, an attribute breakout and an entity are left.
    expectSuccess(await iago.client.patch("/settings", { full_name: HOSTILE_NAME }));
    expectSuccess(
      await iago.client.post("/users/me/status", { status_text: PAYLOADS[2]!.slice(0, 60), emoji_name: "" }),
    );
    const file = await upload(
      iago,
      `${PAYLOADS[0]!}.txt`.replace(/\//g, ""),
      new TextEncoder().encode("x"),
      "text/plain",
    );
    const topic = PAYLOADS[2]!.slice(0, 60);
    for (const content of [
      ...PAYLOADS,
      `[file](${file}) ${ALL}`,
      "```\n" + ALL + "\n```",
      `**${PAYLOADS[0]}**`,
    ]) {
      expectSuccess(
        await iago.client.post("/messages", { type: "stream", to: hostileChannel, topic, content }),
      );
    }
    expectSuccess(
      await iago.client.post("/messages", { type: "direct", to: [realm.users.hamlet!.id], content: ALL }),
    );
    browser = await launchBrowser();
    victim = await logIn(browser, server, realm.users.hamlet!.email, realm.users.hamlet!.password);
    victim.page.on("dialog", (dialog) => dialogs.push(dialog.message()));
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [victim]);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  const pwned = () => victim.page.evaluate("window.__pwned");

  it("shows hostile channel, topic, user, status and message text as text, running none of it", async function () {
    const channels = victim.page.getByRole("navigation", { name: "Channels" });
    const link = channels.getByRole("link", { name: /^evil / });
    await link.click();
    await messages(victim.page).first().waitFor();
    await victim.page.getByRole("link", { name: "Recent conversations" }).click();
    await victim.page.getByRole("link", { name: "Inbox" }).click();
    await victim.page.getByRole("navigation", { name: "Direct messages" }).getByRole("link").first().click();
    await messages(victim.page).first().waitFor();
    await victim.page
      .getByRole("complementary", { name: "Users" })
      .getByRole("button", { name: HOSTILE_NAME })
      .click();
    await victim.page.getByRole("dialog").waitFor();
    await victim.page.keyboard.press("Escape");
    // The sender's name, the topic and the channel's name appear literally.
    await link.click();
    await victim.page
      .getByRole("region", { name: "Messages", exact: true })
      .getByText(HOSTILE_NAME, { exact: true })
      .first()
      .waitFor();
    await victim.page.getByRole("heading", { level: 1, name: /^#evil <img src=x/ }).waitFor();
    expect(await pwned()).to.equal(undefined);
    expect(dialogs).to.deep.equal([]);
    expect(await victim.page.locator("script:not([src])").count()).to.equal(0);
    expect(await victim.page.locator("iframe").count()).to.equal(0);
    expect(await victim.page.locator("[onerror], [onload]").count()).to.equal(0);
    expect(await victim.page.locator('a[href^="javascript:"]').count()).to.equal(0);
    // Nothing was even attempted: the CSP reported no blocked inline script.
    expect(victim.problems).to.deep.equal([]);
  });

  it("previews a hostile draft without running it", async function () {
    await victim.page.getByLabel("Message", { exact: true }).fill(ALL);
    await victim.page.getByRole("button", { name: "Preview" }).click();
    await victim.page.getByRole("region", { name: "Preview" }).waitFor();
    expect(await pwned()).to.equal(undefined);
    expect(victim.problems).to.deep.equal([]);
  });
});

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
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { checkView, expectEventually, makeChannels, sendToChannel, styleOf } from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

/** 1x1 PNG. */
const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** The user's settings as the server holds them (register's user_settings). */
async function settingsOf(user: TestUser): Promise<Record<string, unknown>> {
  const body = expectSuccess(
    await user.client.post("/register", { fetch_event_types: JSON.stringify(["user_settings"]) }),
  );
  return body.user_settings as Record<string, unknown>;
}

/** Personal settings for everyone, the organization's for administrators only. */
describe("web client: settings", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let desdemona: Person;
  let othello: Person | undefined;
  let ids: Record<string, number>;

  const settings = async (page: Page, section: string) => {
    await page.goto(`${server.url}/#settings/${section}`);
    await page.getByRole("heading", { level: 1, name: "Personal settings" }).waitFor();
  };
  const organization = async (page: Page, section: string) => {
    await page.goto(`${server.url}/#organization/${section}`);
    await page.getByRole("heading", { level: 1, name: "Organization settings" }).waitFor();
  };
  const saved = (page: Page, text = "Saved") => page.getByRole("status").filter({ hasText: text }).first();

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({
      desdemona: ROLE.OWNER,
      hamlet: ROLE.MEMBER,
      othello: ROLE.MEMBER,
      cordelia: ROLE.MEMBER,
    });
    const { desdemona: d, hamlet: h, othello: o, cordelia: c } = realm.users;
    ids = await makeChannels(d!, [{ name: "Denmark" }, { name: "Verona" }], [d!, h!, o!, c!]);
    await sendToChannel(o!, ids.Denmark!, "time", "What hour now?");
    browser = await launchBrowser();
    hamlet = await logIn(browser, server, h!.email, h!.password);
    desdemona = await logIn(browser, server, d!.email, d!.password);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [hamlet, desdemona, othello]);
    expect(hamlet?.problems ?? []).to.deep.equal([]);
    expect(desdemona?.problems ?? []).to.deep.equal([]);
  });

  it("draws every settings section with one h1, focus rings and named controls", async function () {
    for (const section of ["profile", "account-and-privacy", "preferences", "notifications"]) {
      await settings(hamlet.page, section);
      await checkView(hamlet.page, "Personal settings");
    }
    for (const section of ["organization-profile", "users", "invitations", "channels"]) {
      await organization(desdemona.page, section);
      await checkView(desdemona.page, "Organization settings");
    }
  });

  it("changes one's name; another person sees the new name at once", async function () {
    await settings(hamlet.page, "profile");
    await hamlet.page.getByLabel("Name", { exact: true }).fill("Prince Hamlet");
    await hamlet.page.getByRole("button", { name: "Save name" }).click();
    await saved(hamlet.page).waitFor();
    await desdemona.page
      .getByRole("complementary", { name: "Users" })
      .getByRole("button", { name: "Prince Hamlet", exact: true })
      .waitFor();
  });

  it("uploads an avatar, shown in place of the initials", async function () {
    await settings(hamlet.page, "profile");
    await hamlet.page.getByLabel("Upload avatar").setInputFiles({
      name: "me.png",
      mimeType: "image/png",
      buffer: Buffer.from(PIXEL_PNG, "base64"),
    });
    await saved(hamlet.page, "Avatar updated").waitFor();
    const picture = hamlet.page.getByRole("button", { name: "Personal menu" }).locator("img");
    await expectEventually(async () =>
      ((await picture.getAttribute("src")) ?? "").includes("/user_avatars/"),
    );
    await expectEventually(
      async () => (await picture.evaluate((img: { naturalWidth: number }) => img.naturalWidth)) > 0,
    );
  });

  it("changes the password: another session of the same person is logged out, this one stays", async function () {
    const h = realm.users.hamlet!;
    const elsewhere = await logIn(browser, server, h.email, h.password);
    try {
      await settings(hamlet.page, "account-and-privacy");
      await hamlet.page.getByLabel("Current password").fill(h.password);
      await hamlet.page.getByLabel("New password").fill("to-be-or-not-to-be");
      await hamlet.page.getByRole("button", { name: "Change password" }).click();
      await saved(hamlet.page, "Password changed. Your other sessions were logged out.").waitFor();
      await elsewhere.page.getByRole("button", { name: "Log in" }).waitFor();
      await hamlet.page.reload();
      await hamlet.page.getByRole("heading", { level: 1, name: "Personal settings" }).waitFor();
      // The new password logs in; the old one does not.
      await elsewhere.page.getByLabel("Email").fill(h.email);
      await elsewhere.page.getByLabel("Password").fill(h.password);
      await elsewhere.page.getByRole("button", { name: "Log in" }).click();
      await elsewhere.page.getByRole("alert").waitFor();
      expect(await elsewhere.page.getByRole("navigation", { name: "Channels" }).count()).to.equal(0);
    } finally {
      await elsewhere.context.close();
    }
  });

  it("applies the dark theme, keeps it after a reload, and follows the browser when automatic", async function () {
    await settings(hamlet.page, "preferences");
    const theme = hamlet.page.getByLabel("Theme");
    const background = () => styleOf(hamlet.page.locator("body"), "background-color");
    const dark = "rgb(27, 29, 34)";
    const light = "rgb(255, 255, 255)";
    expect(await background()).to.equal(light);
    await theme.selectOption({ label: "Dark" });
    await expectEventually(
      async () => (await hamlet.page.locator("html").getAttribute("data-theme")) === "dark",
    );
    expect(await background()).to.equal(dark);
    await hamlet.page.reload();
    await hamlet.page.getByRole("heading", { level: 1, name: "Personal settings" }).waitFor();
    expect(await hamlet.page.locator("html").getAttribute("data-theme")).to.equal("dark");
    expect(await background()).to.equal(dark);
    await checkView(hamlet.page, "Personal settings", 6);

    await theme.selectOption({ label: "Automatic (follows the system)" });
    await expectEventually(
      async () => (await hamlet.page.locator("html").getAttribute("data-theme")) === null,
    );
    expect(await background()).to.equal(light);
    await hamlet.page.emulateMedia({ colorScheme: "dark" });
    await expectEventually(async () => (await background()) === dark);
    await hamlet.page.emulateMedia({ colorScheme: "light" });
    await expectEventually(async () => (await background()) === light);
    expect((await settingsOf(realm.users.hamlet!)).color_scheme).to.equal(1);
  });

  it("shows times with a 24-hour clock when asked", async function () {
    await hamlet.page.goto(`${server.url}/#narrow/channel/${ids.Denmark}-Denmark/topic/time`);
    const time = messages(hamlet.page).filter({ hasText: "What hour now?" }).locator("time").first();
    await time.waitFor();
    expect(await time.textContent()).to.match(/^\d{1,2}:\d\d\s?[AP]M$/);
    await settings(hamlet.page, "preferences");
    const clock = hamlet.page.getByRole("checkbox", { name: "Use 24-hour time" });
    await clock.check();
    await saved(hamlet.page).waitFor();
    await hamlet.page.goto(`${server.url}/#narrow/channel/${ids.Denmark}-Denmark/topic/time`);
    await expectEventually(async () => /^\d\d:\d\d$/.test((await time.textContent()) ?? ""));
    expect((await settingsOf(realm.users.hamlet!)).twenty_four_hour_time).to.equal(true);
  });

  it("saves notification settings as they are toggled", async function () {
    await settings(hamlet.page, "notifications");
    const channels = hamlet.page.getByRole("checkbox", {
      name: "Desktop notifications for every channel message",
    });
    const sounds = hamlet.page.getByRole("checkbox", { name: "Play a sound" });
    const before = await settingsOf(realm.users.hamlet!);
    expect(await channels.isChecked()).to.equal(before.enable_stream_desktop_notifications);
    await channels.setChecked(!before.enable_stream_desktop_notifications);
    await expectEventually(
      async () =>
        (await settingsOf(realm.users.hamlet!)).enable_stream_desktop_notifications ===
        !before.enable_stream_desktop_notifications,
    );
    await sounds.setChecked(!before.enable_sounds);
    await expectEventually(
      async () => (await settingsOf(realm.users.hamlet!)).enable_sounds === !before.enable_sounds,
    );
    await hamlet.page.reload();
    expect(await channels.isChecked()).to.equal(!before.enable_stream_desktop_notifications);
  });

  it("lets an administrator create a user, who can then log in", async function () {
    await organization(desdemona.page, "users");
    const form = desdemona.page.getByRole("form", { name: "Add a user" });
    await form.getByLabel("New user's email").fill("ophelia@zulip.test");
    await form.getByLabel("New user's name").fill("Ophelia Dane");
    await form.getByLabel("Initial password").fill("get-thee-to-a-nunnery");
    await form.getByRole("button", { name: "Create user" }).click();
    await saved(desdemona.page, "User created").waitFor();
    await desdemona.page.getByRole("cell", { name: "Ophelia Dane", exact: true }).waitFor();
    const ophelia = await logIn(browser, server, "ophelia@zulip.test", "get-thee-to-a-nunnery");
    try {
      await ophelia.page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
      expect(ophelia.problems).to.deep.equal([]);
    } finally {
      await ophelia.context.close();
    }
  });

  it("lets an administrator change a person's role", async function () {
    await organization(desdemona.page, "users");
    await desdemona.page.getByLabel("Role of Cordelia Dane").selectOption({ label: "Moderator" });
    await saved(desdemona.page, "Cordelia Dane's role changed").waitFor();
    const body = expectSuccess(await realm.users.desdemona!.client.get(`/users/${realm.users.cordelia!.id}`));
    expect((body.user as { role: number }).role).to.equal(ROLE.MODERATOR);
  });

  it("deactivates a person, whose open browser goes to the login page at once; and reactivates them", async function () {
    const o = realm.users.othello!;
    othello = await logIn(browser, server, o.email, o.password);
    await organization(desdemona.page, "users");
    await desdemona.page.getByRole("button", { name: "Deactivate Othello Dane" }).click();
    await saved(desdemona.page, "Othello Dane was deactivated").waitFor();
    await othello.page.getByRole("button", { name: "Log in" }).waitFor();
    await desdemona.page.getByRole("button", { name: "Reactivate Othello Dane" }).click();
    await saved(desdemona.page, "Othello Dane was reactivated").waitFor();
    await othello.page.getByLabel("Email").fill(o.email);
    await othello.page.getByLabel("Password").fill(o.password);
    await othello.page.getByRole("button", { name: "Log in" }).click();
    await othello.page.getByRole("navigation", { name: "Channels" }).waitFor();
    await othello.context.close();
    othello = undefined;
  });

  it("lets an administrator make a channel private, and archive one (gone from everyone's sidebar)", async function () {
    await organization(desdemona.page, "channels");
    await desdemona.page.getByLabel("Access to Denmark").selectOption({ label: "Private: by invitation" });
    await saved(desdemona.page, "#Denmark updated").waitFor();
    const stream = expectSuccess(await realm.users.desdemona!.client.get(`/streams/${ids.Denmark}`));
    expect((stream.stream as { invite_only: boolean }).invite_only).to.equal(true);

    const verona = hamlet.page
      .getByRole("navigation", { name: "Channels" })
      .getByRole("link", { name: "Verona", exact: true });
    await hamlet.page.goto(`${server.url}/#inbox`);
    await verona.waitFor();
    await desdemona.page.getByRole("button", { name: "Archive Verona" }).click();
    await saved(desdemona.page, "#Verona was archived").waitFor();
    await verona.waitFor({ state: "detached" });
    expect(await desdemona.page.getByRole("button", { name: "Archive Verona" }).count()).to.equal(0);
  });

  it("lets an administrator rename the organization and describe it; everyone's top bar follows", async function () {
    await organization(desdemona.page, "organization-profile");
    await desdemona.page.getByLabel("Organization name").fill("Elsinore Castle");
    await desdemona.page.getByLabel("Organization description").fill("Something is rotten");
    await desdemona.page.getByRole("button", { name: "Save changes" }).click();
    await saved(desdemona.page).waitFor();
    await hamlet.page.getByRole("banner").getByRole("link", { name: "Elsinore Castle" }).waitFor();
  });

  it("shows a member no organization settings, not even by URL", async function () {
    await settings(hamlet.page, "profile");
    const nav = hamlet.page.getByRole("navigation", { name: "Settings sections" });
    await nav.getByRole("link", { name: "Profile" }).waitFor();
    expect(await nav.getByRole("heading", { name: "Organization" }).count()).to.equal(0);
    expect(await nav.getByRole("link", { name: "Users" }).count()).to.equal(0);
    await hamlet.page.goto(`${server.url}/#organization/users`);
    await hamlet.page.getByRole("heading", { level: 1, name: "Personal settings" }).waitFor();
    expect(await hamlet.page.getByRole("form", { name: "Add a user" }).count()).to.equal(0);
    expect(await hamlet.page.getByRole("button", { name: /^Deactivate/ }).count()).to.equal(0);
  });
});

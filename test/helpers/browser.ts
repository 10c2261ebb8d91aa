import { existsSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { TestServer } from "./server.js";

/**
 * The real browser for the web client's end-to-end tests: Debian's Chromium, driven by
 * playwright-core (no browser can be downloaded here). CHATD_CHROMIUM names another
 * binary; without one the tests are skipped, and say so.
 */
export const CHROMIUM = process.env.CHATD_CHROMIUM ?? "/usr/bin/chromium";
export const browserAvailable = () => existsSync(CHROMIUM);

let skipNoticeShown = false;

/** Skips the suite (with one plain line saying why) where there is no Chromium. */
export function requireBrowser(suite: Mocha.Context): void {
  if (browserAvailable()) return;
  if (!skipNoticeShown) {
    skipNoticeShown = true;
    process.stderr.write(
      `web end-to-end tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`,
    );
  }
  suite.skip();
}

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

export interface Person {
  context: BrowserContext;
  page: Page;
  /** Script errors and failed requests the page reported (a test asserts there are none). */
  problems: string[];
}

/** A person at their own browser (separate cookies), logged in at `/`, the app drawn. */
export async function logIn(
  browser: Browser,
  server: Pick<TestServer, "url">,
  email: string,
  password: string,
  options: {
    viewport?: { width: number; height: number };
    colorScheme?: "light" | "dark";
    hash?: string;
  } = {},
): Promise<Person> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (message) => {
    // Gravatar is unreachable here; every other console error is a defect.
    if (
      message.type() === "error" &&
      !/ERR_NAME_NOT_RESOLVED|ERR_CONNECTION_REFUSED|gravatar/.test(message.text())
    ) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${server.url}/${options.hash ?? ""}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  // The app is drawn (its search box is in the top bar at every width; a phone hides the sidebars).
  await page.getByRole("searchbox", { name: "Search" }).waitFor();
  return { context, page, problems };
}

/** The message region's articles, as a person reads them. */
export const messages = (page: Page) =>
  page.getByRole("region", { name: "Messages", exact: true }).getByRole("article");

/** After a failed test: a screenshot of each page, for the person reading the failure. */
export async function screenshotOnFailure(
  test: Mocha.Context,
  people: Array<Person | undefined>,
): Promise<void> {
  if (test.currentTest?.state !== "failed") return;
  const { tmpdir } = await import("node:os");
  const name = test.currentTest
    .fullTitle()
    .replace(/[^\w]+/g, "-")
    .slice(0, 80);
  for (const [i, person] of people.entries()) {
    if (!person) continue;
    const path = `${tmpdir()}/chatd-e2e-${name}-${i}.png`;
    await person.page.screenshot({ path, fullPage: true }).catch(() => undefined);
    process.stderr.write(`screenshot: ${path}\n`);
  }
}

// The web client's budgets (issue 28), in a real browser against a chatd on the bench's
// data set: the JavaScript and CSS a cold, logged-in load of a channel view fetches until
// its feed is drawn (gzipped, as served), the time from navigation to that feed, how long a
// live message takes from its event's arrival to the screen, and the page's JS heap after
// scrolling back through 5,000 messages. The page records the last two itself when asked
// (src/web/perf.ts). Skipped, and said so, where there is no Chromium.
import { execFileSync } from "node:child_process";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { browserAvailable, CHROMIUM, launchBrowser } from "../../test/helpers/browser.js";
import type { BenchUser, Dataset } from "./dataset.js";
import { CHATD_BIN } from "./processes.js";
import { median, round } from "./stats.js";

export interface WebFigures {
  /** JS + CSS bytes as transferred (gzip or brotli), until the feed was drawn. */
  coldBytes: number;
  coldFiles: number;
  /** Navigation to the feed drawn, median over the cold loads. */
  feedDrawnMs: number;
  feedDrawnRuns: number[];
  liveP50Ms: number;
  liveP99Ms: number;
  liveMaxMs: number;
  liveMessages: number;
  heapMb: number;
  heapMessages: number;
}

const PASSWORD = "bench-password-1";
const COLD_LOADS = 5;
const LIVE_MESSAGES = 40;
const SCROLLED_MESSAGES = 5000;

/** Gives the data set's owner a password (the bench users have none): before the server starts. */
export function preparePassword(dataDir: string, owner: BenchUser, env: NodeJS.ProcessEnv = {}): void {
  execFileSync(
    process.execPath,
    [
      CHATD_BIN,
      "--data-dir",
      dataDir,
      "user",
      "set-password",
      "--email",
      owner.email,
      "--password",
      PASSWORD,
      "--no-input",
    ],
    { env: { ...process.env, ...env }, stdio: "ignore" },
  );
}

export async function measureWebClient(
  url: string,
  dataset: Dataset,
  log: (line: string) => void,
): Promise<WebFigures | null> {
  if (!browserAvailable()) {
    log(`  web client: skipped (no Chromium at ${CHROMIUM})`);
    return null;
  }
  const owner = dataset.users[0]!;
  const channel = dataset.channels.find((c) => c.subscribers.includes(owner.id))!;
  const channelHash = `#narrow/channel/${channel.id}-${encodeURIComponent(channel.name).replace(/%/g, ".")}`;
  const browser = await launchBrowser();
  try {
    const storage = await loggedIn(browser, url, owner);
    const runs: number[] = [];
    let bytes = 0;
    let files = 0;
    for (let i = 0; i < COLD_LOADS; i++) {
      // A new context: an empty cache, the session cookie only.
      const context = await browser.newContext({
        storageState: storage,
        viewport: { width: 1280, height: 800 },
      });
      const page = await context.newPage();
      await page.goto(`${url}/${channelHash}`);
      await page
        .getByRole("region", { name: "Messages", exact: true })
        .getByRole("article")
        .first()
        .waitFor();
      const cold = await coldLoad(page);
      log(
        `  cold load ${i + 1}: feed drawn at ${Math.round(cold.feedDrawnMs)} ms (${cold.phases.join(", ")})`,
      );
      runs.push(cold.feedDrawnMs);
      bytes = cold.bytes;
      files = cold.files;
      await context.close();
    }
    const live = await liveDelays(browser, storage, url, channelHash, dataset, channel.id);
    // Everything read: All messages opens at the newest message, with 40,000 behind it.
    await fetch(`${url}/api/v1/mark_all_as_read`, {
      method: "POST",
      headers: { authorization: basic(owner) },
    });
    const heap = await heapAfterScrolling(browser, storage, url);
    return {
      coldBytes: bytes,
      coldFiles: files,
      feedDrawnMs: round(median(runs), 0),
      feedDrawnRuns: runs.map((r) => round(r, 0)),
      liveP50Ms: round(percentile(live, 0.5), 1),
      liveP99Ms: round(percentile(live, 0.99), 1),
      liveMaxMs: round(Math.max(...live), 1),
      liveMessages: live.length,
      heapMb: round(heap.usedBytes / 1024 ** 2, 1),
      heapMessages: heap.messages,
    };
  } finally {
    await browser.close();
  }
}

type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

async function loggedIn(browser: Browser, url: string, owner: BenchUser): Promise<StorageState> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("navigation", { name: "Channels" }).waitFor();
  const state = await context.storageState();
  await context.close();
  return state;
}

/** The page's own record of its load: script and style bytes fetched before the feed was drawn. */
async function coldLoad(
  page: Page,
): Promise<{ feedDrawnMs: number; bytes: number; files: number; phases: string[] }> {
  // Functions, not strings: the page's CSP forbids evaluating strings as code.
  await page.waitForFunction(() => performance.getEntriesByName("chatd:feed-drawn").length > 0);
  return page.evaluate(() => {
    interface Resource {
      name: string;
      startTime: number;
      responseEnd: number;
      encodedBodySize: number;
    }
    const drawn = performance.getEntriesByName("chatd:feed-drawn")[0]!.startTime;
    const loaded = (performance.getEntriesByType("resource") as unknown as Resource[]).filter(
      (e) => e.responseEnd <= drawn,
    );
    const assets = loaded.filter((e) => /\.(js|css)(\?|$)/.test(e.name));
    const api = loaded.filter((e) => e.name.includes("/json/"));
    const span = (e: Resource, name: string) =>
      `${name} ${Math.round(e.startTime)}-${Math.round(e.responseEnd)}`;
    return {
      feedDrawnMs: drawn,
      bytes: assets.reduce((sum, e) => sum + e.encodedBodySize, 0),
      files: assets.length,
      phases: [
        ...assets.map((e) => span(e, e.name.slice(e.name.lastIndexOf("/") + 1))),
        ...api.map((e) => span(e, new URL(e.name).pathname)),
      ],
    };
  });
}

/** Messages sent by another user, one at a time: from each one's event arriving in the page to it being painted. */
async function liveDelays(
  browser: Browser,
  storage: StorageState,
  url: string,
  channelHash: string,
  dataset: Dataset,
  channelId: number,
): Promise<number[]> {
  // The channel read, so that it opens at its newest message, where a new one is drawn as it
  // arrives (after the full run's other scenarios, its first unread is far behind).
  const read = await fetch(`${url}/api/v1/mark_stream_as_read`, {
    method: "POST",
    headers: { authorization: basic(dataset.users[0]!) },
    body: new URLSearchParams({ stream_id: String(channelId) }),
  });
  if (!read.ok) throw new Error(`mark_stream_as_read answered ${read.status}: ${await read.text()}`);
  const context = await browser.newContext({ storageState: storage, viewport: { width: 1280, height: 800 } });
  await context.addInitScript("window.__chatdPerf = true");
  const page = await context.newPage();
  await page.goto(`${url}/${channelHash}`);
  await page.getByRole("region", { name: "Messages", exact: true }).getByRole("article").first().waitFor();
  const sender = dataset.users.find(
    (u) =>
      u.id !== dataset.users[0]!.id &&
      dataset.channels.some((c) => c.id === channelId && c.subscribers.includes(u.id)),
  )!;
  const auth = basic(sender);
  for (let i = 0; i < LIVE_MESSAGES; i++) {
    const body = new URLSearchParams({
      type: "stream",
      to: String(channelId),
      topic: "live",
      content: `live ${i}`,
    });
    const sent = await fetch(`${url}/api/v1/messages`, {
      method: "POST",
      headers: { authorization: auth },
      body,
    });
    if (!sent.ok)
      throw new Error(`live message ${i}: POST /messages answered ${sent.status}: ${await sent.text()}`);
    await page
      .waitForFunction((n) => performance.getEntriesByName("chatd:live-drawn").length >= n, i + 1)
      .catch(async (err: unknown) => {
        const shown = await page.getByText(`live ${i}`, { exact: true }).count();
        throw new Error(`live message ${i} (sent ${sent.status}, ${shown} shown): ${String(err)}`);
      });
  }
  const delays = await page.evaluate(() =>
    performance.getEntriesByName("chatd:live-drawn").map((e) => e.duration),
  );
  await context.close();
  return delays;
}

/** All messages, scrolled back until 5,000 are loaded; then the heap after a full collection. */
async function heapAfterScrolling(
  browser: Browser,
  storage: StorageState,
  url: string,
): Promise<{ usedBytes: number; messages: number }> {
  const context = await browser.newContext({ storageState: storage, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/#feed`);
  const feed = page.getByRole("region", { name: "Messages", exact: true });
  await feed.getByRole("article").first().waitFor();
  let count = 0;
  for (let tries = 0; count < SCROLLED_MESSAGES && tries < 400; tries++) {
    await feed.evaluate((el: { scrollTop: number }) => {
      el.scrollTop = 0;
    });
    await page.waitForTimeout(60);
    count = await feed.evaluate(
      (el: { querySelectorAll(selector: string): { length: number } }) =>
        el.querySelectorAll("article").length,
    );
  }
  if (count < SCROLLED_MESSAGES) {
    const edges = await page.locator(".feed-edge, .feed-empty").allTextContents();
    throw new Error(`scrolled back to ${count} messages only (${edges.join("; ")})`);
  }
  const cdp = await context.newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  const usage = await cdp.send("Runtime.getHeapUsage");
  await context.close();
  return { usedBytes: usage.usedSize, messages: count };
}

const basic = (user: BenchUser) => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

import { expect } from "chai";
import type { Locator, Page } from "playwright-core";
import { expectSuccess } from "./client.js";
import type { TestUser } from "./factories.js";

/**
 * Checks every view of the web client shares: one h1 naming it, a visible focus ring,
 * and names for whatever a person operates (Chromium's own accessibility tree decides).
 */

/** Polls a condition until it holds (the UI follows events within milliseconds; allow seconds). */
export async function expectEventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Roles a person operates or reads as one thing: each needs an accessible name. */
const NAMED_ROLES = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "combobox",
  "checkbox",
  "radio",
  "switch",
  "slider",
  "spinbutton",
  "listbox",
  "progressbar",
  "image",
  // Landmarks and dialogs a person moves between (an unnamed form or section is no landmark).
  "dialog",
  "navigation",
  "complementary",
]);

/** Every unnamed control (or landmark, image) in Chromium's accessibility tree, described by its HTML. */
export async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    const found: string[] = [];
    for (const node of nodes) {
      const role = String(node.role?.value ?? "");
      if (node.ignored || !NAMED_ROLES.has(role) || String(node.name?.value ?? "").trim() !== "") continue;
      const html = node.backendDOMNodeId
        ? (await cdp.send("DOM.getOuterHTML", { backendNodeId: node.backendDOMNodeId })).outerHTML.slice(
            0,
            160,
          )
        : "?";
      found.push(`${role}: ${html}`);
    }
    return found;
  } finally {
    await cdp.detach();
  }
}

/** The focused element's ring, or why there is none. */
async function focusRing(page: Page): Promise<{ what: string; visible: boolean } | null> {
  return page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const visible = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    const what = el.tagName.toLowerCase() + " " + (el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 40);
    return { what, visible };
  })()`);
}

/**
 * The view's checks: exactly one h1, with this text; no unnamed control; and the first
 * `tabs` stops of the Tab key each show a focus ring.
 */
export async function checkView(page: Page, heading: string | RegExp, tabs = 12): Promise<void> {
  const h1 = page.getByRole("heading", { level: 1 });
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  expect(await h1.count(), "h1 elements").to.equal(1);
  expect(await unnamedControls(page), "controls without an accessible name").to.deep.equal([]);
  await page.evaluate("document.activeElement?.blur()");
  const unringed: string[] = [];
  for (let i = 0; i < tabs; i++) {
    await page.keyboard.press("Tab");
    const ring = await focusRing(page);
    if (ring && !ring.visible) unringed.push(ring.what);
  }
  expect(unringed, "focused elements without a visible focus ring").to.deep.equal([]);
  await page.evaluate("document.activeElement?.blur()");
}

/** Channels by name, created over the API with these subscribers; returns name -> ID. */
export async function makeChannels(
  owner: TestUser,
  channels: Array<{ name: string; description?: string }>,
  subscribers: readonly TestUser[],
): Promise<Record<string, number>> {
  expectSuccess(
    await owner.client.post("/users/me/subscriptions", {
      subscriptions: channels,
      principals: subscribers.map((u) => u.id),
    }),
  );
  const streams = expectSuccess(await owner.client.get("/streams")).streams as Array<{
    stream_id: number;
    name: string;
  }>;
  return Object.fromEntries(streams.map((s) => [s.name, s.stream_id]));
}

/** Sends a channel message over the API; returns its ID. */
export async function sendToChannel(
  sender: TestUser,
  channelId: number,
  topic: string,
  content: string,
): Promise<number> {
  return expectSuccess(
    await sender.client.post("/messages", { type: "stream", to: channelId, topic, content }),
  ).id as number;
}

/** Sends a direct message over the API; returns its ID. */
export async function sendDirect(
  sender: TestUser,
  to: readonly TestUser[],
  content: string,
): Promise<number> {
  return expectSuccess(
    await sender.client.post("/messages", { type: "direct", to: to.map((u) => u.id), content }),
  ).id as number;
}

/** The flags a user's message carries, as the API reports them. */
export async function flagsOf(user: TestUser, messageId: number): Promise<string[]> {
  const body = expectSuccess(await user.client.get(`/messages/${messageId}`));
  return (body.message as { flags: string[] }).flags;
}

/**
 * What the functions below use of an element in the page (this file is compiled without
 * the DOM's types; Playwright runs the functions in the browser).
 */
interface PageNode {
  nodeType: number;
  textContent: string | null;
  childNodes: ArrayLike<PageNode>;
  getAttribute(name: string): string | null;
  ownerDocument: {
    getElementById(id: string): PageNode | null;
    defaultView: { getComputedStyle(el: PageNode): { getPropertyValue(name: string): string } } | null;
  };
}

/**
 * A control's accessible description, as a screen reader would read it: the text of what
 * its aria-describedby names, each element by its aria-label or else its text ("" if nothing).
 */
export function descriptionOf(control: Locator): Promise<string> {
  return control.evaluate((el: PageNode) => {
    const text = (node: PageNode): string => {
      if (node.nodeType === 3) return node.textContent ?? "";
      if (node.nodeType !== 1 || node.getAttribute("aria-hidden") === "true") return "";
      return node.getAttribute("aria-label") ?? Array.from(node.childNodes, text).join(" ");
    };
    return (el.getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .map((id) => el.ownerDocument.getElementById(id))
      .map((node) => (node ? text(node).replace(/\s+/g, " ").trim() : ""))
      .filter(Boolean)
      .join(" ");
  });
}

/** A CSS property's computed value on an element. */
export function styleOf(target: Locator, property: string): Promise<string> {
  return target.evaluate(
    (el: PageNode, name: string) => el.ownerDocument.defaultView!.getComputedStyle(el).getPropertyValue(name),
    property,
  );
}

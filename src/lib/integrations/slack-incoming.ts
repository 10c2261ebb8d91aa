import { anomalousPayload } from "./errors.js";
import { convertSlackFormatting, replaceLinks } from "./slack-formatting.js";
import type { IncomingWebhookIntegration, WebhookInput, WebhookMessage } from "./types.js";
import type { Wild } from "./wild.js";

/**
 * Slack-compatible incoming webhooks (Zulip's zerver/webhooks/slack_incoming): `text`,
 * Block Kit `blocks` and legacy `attachments`, with Slack's link and emphasis syntax
 * turned into Markdown (slack-formatting.ts). The topic is the URL's, else the payload's `channel` without its
 * leading # or @, else "(no topic)".
 */

const NAME = "SlackIncoming";
/** Block Kit types Zulip knows; those it does not render (calls, files, rich text...) add nothing. */
const BLOCK_TYPES = new Set([
  "actions",
  "context",
  "call",
  "contact_card",
  "condition",
  "divider",
  "file",
  "header",
  "image",
  "input",
  "section",
  "table",
  "rich_text",
]);

const joinPieces = (pieces: string[]) =>
  pieces
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "")
    .join("\n\n");

/** A text object ({type: plain_text | mrkdwn, text}); headers take plain text only. */
function textOf(block: Wild, plainOnly = false): string {
  const type = block.get("type").str();
  if (type !== "plain_text" && (plainOnly || type !== "mrkdwn")) throw anomalousPayload(NAME);
  return block.get("text").str();
}

function url(value: Wild): string {
  const text = value.str();
  if (!/^https?:\/\/\S+$/i.test(text)) throw anomalousPayload(NAME);
  return text;
}

function renderElement(element: Wild): string {
  if (element.get("type").str() !== "image") return "";
  return `[${element.get("alt_text").str()}](${url(element.get("image_url"))})`;
}

function renderBlock(block: Wild): string {
  const type = block.get("type").str();
  if (!BLOCK_TYPES.has(type)) throw anomalousPayload(NAME);
  if (type === "context" && block.opt("elements")?.truthy) {
    return joinPieces(
      block
        .get("elements")
        .items()
        .map((element) => (element.get("type").str() === "image" ? renderElement(element) : textOf(element))),
    );
  }
  if (type === "divider") return "----";
  if (type === "header") return `## ${textOf(block.get("text"), true)}`;
  if (type === "image") {
    const imageUrl = url(block.get("image_url"));
    const alt = block.get("alt_text").str();
    const title = block.opt("title");
    return `[${title ? textOf(title, true) : alt}](${imageUrl})`;
  }
  if (type !== "section") return "";
  const pieces: string[] = [];
  const text = block.opt("text");
  if (text) pieces.push(textOf(text));
  const accessory = block.opt("accessory");
  if (accessory) pieces.push(renderElement(accessory));
  const fields = block.opt("fields");
  if (fields) {
    const texts = fields.items().map((field) => textOf(field));
    if (texts.length === 1) pieces.push(texts[0]!);
    else {
      // No newlines or pipes in a table cell: Slack shows the fields in two columns.
      const cells = texts.map((t) => t.replaceAll("\n", " ").replaceAll("|", " "));
      let table = "| | |\n|-|-|\n";
      for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ""} |\n`;
      pieces.push(table);
    }
  }
  return joinPieces(pieces);
}

function renderAttachment(attachment: Wild): string {
  const pieces: string[] = [];
  const present = (key: string) => (attachment.opt(key)?.truthy ? attachment.get(key) : undefined);
  const title = present("title");
  if (title) {
    const link = present("title_link");
    pieces.push(link ? `## [${title.str()}](${url(link)})` : `## ${title.str()}`);
  }
  const pretext = present("pretext");
  if (pretext) pieces.push(pretext.str());
  const text = present("text");
  if (text) pieces.push(text.str());
  const fields = attachment.opt("fields");
  if (fields) {
    const lines: string[] = [];
    for (const field of fields.items()) {
      const fieldTitle = field.opt("title")?.truthy ? field.get("title").str() : null;
      const value = field.opt("value")?.truthy ? field.get("value").str() : null;
      if (fieldTitle !== null && value !== null) lines.push(`*${fieldTitle}*: ${value}`);
      else if (fieldTitle !== null) lines.push(`*${fieldTitle}*`);
      else if (value !== null) lines.push(value);
    }
    pieces.push(lines.join("\n"));
  }
  const blocks = present("blocks");
  if (blocks) pieces.push(...blocks.items().map(renderBlock));
  const image = present("image_url");
  if (image) pieces.push(`[](${imageUrl(image)})`);
  const footer = present("footer");
  if (footer) pieces.push(footer.str());
  const ts = present("ts");
  if (ts) pieces.push(globalTime(ts));
  return joinPieces(pieces);
}

/** An attachment's image: a URL as it is, else the text with unsafe characters %-quoted (requote_uri). */
function imageUrl(value: Wild): string {
  try {
    return url(value);
  } catch {
    // Not a URL as it stands: quoted below.
  }
  const text = value.str();
  try {
    return text
      .replace(/%(?![0-9A-Fa-f]{2})/g, "%25")
      .replace(/[^A-Za-z0-9\-._~!#$%&'()*+,/:;=?@[\]]/gu, (c) => encodeURIComponent(c));
  } catch {
    throw anomalousPayload(NAME); // a lone surrogate, which no URL can hold
  }
}

/**
 * Zulip's global time syntax for a Unix time, which Slack sends as an integer or, seen in
 * the wild, as a string holding a float: <time:2022-06-23T00:48:26+00:00>.
 */
function globalTime(ts: Wild): string {
  const seconds = typeof ts.value === "string" ? Math.trunc(Number(ts.value)) : ts.int();
  const date = new Date(seconds * 1000);
  const year = date.getUTCFullYear();
  // Python's datetime covers years 1 to 9999 only.
  if (!Number.isFinite(seconds) || !(year >= 1 && year <= 9999)) throw anomalousPayload(NAME);
  return `<time:${date.toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;
}

function messages(input: WebhookInput): WebhookMessage[] {
  const { payload } = input;
  let topic = input.userSpecifiedTopic;
  const channel = payload.opt("channel");
  if (topic === undefined && channel) topic = channel.str().replace(/^[@#]/, "");
  topic ??= "(no topic)";
  const pieces: string[] = [];
  if (payload.opt("blocks")?.truthy) pieces.push(...payload.get("blocks").items().map(renderBlock));
  if (payload.opt("attachments")?.truthy)
    pieces.push(...payload.get("attachments").items().map(renderAttachment));
  let body = joinPieces(pieces);
  if (body === "" && payload.opt("text")?.truthy) {
    if (payload.opt("icon_emoji")?.truthy) body = `${payload.get("icon_emoji").str()} `;
    body = (body + payload.get("text").str()).trim();
  }
  if (body === "") return [];
  return [{ topic, content: convertSlackFormatting(replaceLinks(body).trim()) }];
}

export const slackIncoming: IncomingWebhookIntegration = {
  name: "slack_incoming",
  displayName: "Slack-compatible webhook",
  webhookName: NAME,
  allEventTypes: null,
  urlOptions: [],
  configOptions: [],
  payloadSource: "json-or-form-payload",
  messages,
};

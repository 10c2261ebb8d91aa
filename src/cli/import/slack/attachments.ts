import type { Json } from "./slack-json.js";

/**
 * Slack's message "blocks" and legacy "attachments" -> Markdown, as Zulip's
 * process_slack_block_and_attachment: when they render to anything, that replaces the
 * message's text. rich_text blocks repeat the text and are skipped; interactive blocks
 * (actions, input, calls) have no Zulip equivalent and are left out.
 */
const s = (v: unknown) => (typeof v === "string" ? v : "");
const obj = (v: unknown): Json =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const joinPieces = (pieces: string[]) =>
  pieces
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .join("\n\n");

const image = (el: Json) => (s(el.image_url) ? `[${s(el.alt_text)}](${s(el.image_url)})` : "");

function renderBlock(block: Json): string {
  switch (block.type) {
    case "context":
      return joinPieces(list(block.elements).map((el) => (el.type === "image" ? image(el) : s(el.text))));
    case "divider":
      return "----";
    case "header":
      return `## ${s(obj(block.text).text)}`;
    case "image": {
      const title = s(obj(block.title).text);
      return s(block.image_url) ? `[${title || s(block.alt_text)}](${s(block.image_url)})` : "";
    }
    case "section": {
      const pieces = [s(obj(block.text).text)];
      const accessory = obj(block.accessory);
      if (accessory.type === "image") pieces.push(image(accessory));
      const fields = list(block.fields).map((f) => s(f.text));
      if (fields.length === 1) pieces.push(fields[0]!);
      else if (fields.length > 1) {
        let table = "| | |\n|-|-|\n";
        const cells = fields.map((f) => f.replace(/\n/g, " ").replace(/\|/g, " "));
        for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ""} |\n`;
        pieces.push(table);
      }
      return joinPieces(pieces);
    }
    default:
      return "";
  }
}

function renderAttachment(a: Json): string {
  const pieces: string[] = [];
  if (s(a.title))
    pieces.push(s(a.title_link) ? `## [${s(a.title)}](${s(a.title_link)})` : `## ${s(a.title)}`);
  pieces.push(s(a.pretext), s(a.text));
  const fields = list(a.fields)
    .map((f) =>
      s(f.title) && s(f.value)
        ? `*${s(f.title)}*: ${s(f.value)}`
        : s(f.title)
          ? `*${s(f.title)}*`
          : s(f.value),
    )
    .filter((f) => f !== "");
  if (fields.length > 0) pieces.push(fields.join("\n"));
  pieces.push(...list(a.blocks).map(renderBlock));
  if (s(a.image_url)) pieces.push(`[](${s(a.image_url)})`);
  pieces.push(s(a.footer));
  const ts = Number(a.ts);
  if (a.ts !== undefined && Number.isFinite(ts))
    pieces.push(`<time:${new Date(Math.floor(ts) * 1000).toISOString().replace(".000Z", "Z")}>`);
  return joinPieces(pieces);
}

export function renderBlocksAndAttachments(message: Json): string {
  const pieces = [
    ...list(message.blocks).map(renderBlock),
    ...list(message.attachments).map(renderAttachment),
  ];
  return pieces
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .join("\n");
}

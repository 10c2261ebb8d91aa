/** An email as it is queued and sent: every email has a plain-text and an HTML body. */
export interface EmailContent {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** What every chatd email says, filled into the one template by `composeEmail`. */
export interface EmailParts {
  /** The organization the email is in the name of. */
  readonly realmName: string;
  /** The server's public URL (`external_url`, or the listening URL): the link back. */
  readonly serverUrl: string;
  readonly subject: string;
  /** Paragraphs of plain text, shown in order (escaped in the HTML body). */
  readonly paragraphs: readonly string[];
  /** The one thing to do, as a button in HTML and a line of its own in text. */
  readonly action?: { readonly label: string; readonly url: string };
  /** Quoted material (missed messages): preformatted blocks of plain text. */
  readonly quotes?: readonly string[];
  /** Why the person got this email, at the end. */
  readonly footer?: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The one email template: plain text and HTML from the same parts. */
export function composeEmail(parts: EmailParts): EmailContent {
  const text = [
    ...parts.paragraphs,
    ...(parts.action ? [`${parts.action.label}: ${parts.action.url}`] : []),
    ...(parts.quotes ?? []).map((q) => q.replace(/^/gm, "> ")),
    ...(parts.footer ? ["--", parts.footer] : []),
    `${parts.realmName} · ${parts.serverUrl}`,
  ].join("\n\n");
  const html = [
    "<!doctype html>",
    '<html><body style="font-family: sans-serif; line-height: 1.5; color: #222">',
    ...parts.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(parts.action
      ? [
          `<p><a href="${escapeHtml(parts.action.url)}" style="display: inline-block; padding: 8px 16px; ` +
            `background: #2f6fdb; color: #fff; text-decoration: none; border-radius: 4px">` +
            `${escapeHtml(parts.action.label)}</a></p>`,
          `<p style="font-size: 90%">${escapeHtml(parts.action.url)}</p>`,
        ]
      : []),
    ...(parts.quotes ?? []).map(
      (q) =>
        `<blockquote style="border-left: 3px solid #ccc; margin: 0; padding-left: 12px; white-space: pre-wrap">` +
        `${escapeHtml(q)}</blockquote>`,
    ),
    ...(parts.footer ? [`<p style="color: #666; font-size: 90%">${escapeHtml(parts.footer)}</p>`] : []),
    `<p style="color: #666; font-size: 90%"><a href="${escapeHtml(parts.serverUrl)}">` +
      `${escapeHtml(parts.realmName)}</a></p>`,
    "</body></html>",
  ].join("\n");
  return { subject: parts.subject, text, html };
}

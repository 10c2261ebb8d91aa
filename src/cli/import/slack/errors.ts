/** The archive is not a Slack export chatd can read; the message names the file (and field). */
export class SlackImportError extends Error {
  override name = "SlackImportError";
}

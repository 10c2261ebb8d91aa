import { CliError } from "../../output.js";

/** The archive is not a Slack export chatd can read; the message names the file (and field). */
export class SlackImportError extends CliError {
  override name = "SlackImportError";
}

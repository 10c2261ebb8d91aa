import { CliError } from "./output.js";

export interface PromptOptions {
  /** commander's --no-input sets input=false. */
  input?: boolean;
}

export const canPrompt = (opts: PromptOptions) => opts.input !== false && process.stdin.isTTY === true;

/**
 * The flag's value if given; otherwise asks on a TTY, or fails naming the flag (with
 * --no-input, or when stdin is not a terminal).
 */
export async function valueOrAsk(
  opts: PromptOptions,
  value: string | undefined,
  flag: string,
  message: string,
  kind: "input" | "password" = "input",
): Promise<string> {
  if (value !== undefined) return value;
  if (!canPrompt(opts)) throw new CliError(`missing ${flag} (pass it, or run in a terminal to be asked)`);
  // Loaded only when a prompt is shown: `chatd serve` never needs it.
  const { default: inquirer } = await import("inquirer");
  const answers = await inquirer.prompt<{ value: string }>([
    kind === "password"
      ? { type: "password", name: "value", message, mask: "*" }
      : { type: "input", name: "value", message },
  ]);
  return answers.value;
}

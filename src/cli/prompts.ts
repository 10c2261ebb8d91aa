import { CliError } from "./output.js";

export interface PromptOptions {
  /** commander's --no-input sets input=false. */
  input?: boolean;
}

export const canPrompt = (opts: PromptOptions) => opts.input !== false && process.stdin.isTTY === true;

/** Validates one value: returns it (cleaned), or throws with the message to show. */
export type ValueCheck = (value: string) => string;

/** The check's message for a value, or true when it passes (inquirer's `validate`). */
function verdict(check: ValueCheck, value: string): true | string {
  try {
    check(value);
    return true;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The flag's value if given; otherwise asks on a TTY, or fails naming the flag (with
 * --no-input, or when stdin is not a terminal). With a check, a flag's invalid value
 * fails with the check's message, and the prompt asks again until the value passes.
 */
export async function valueOrAsk(
  opts: PromptOptions,
  value: string | undefined,
  flag: string,
  message: string,
  kind: "input" | "password" = "input",
  check: ValueCheck = (v) => v,
): Promise<string> {
  if (value !== undefined) return check(value);
  if (!canPrompt(opts)) throw new CliError(`missing ${flag} (pass it, or run in a terminal to be asked)`);
  // Loaded only when a prompt is shown: `chatd serve` never needs it.
  const { default: inquirer } = await import("inquirer");
  const validate = (answer: string) => verdict(check, answer);
  const answers = await inquirer.prompt<{ value: string }>([
    kind === "password"
      ? { type: "password", name: "value", message, mask: "*", validate }
      : { type: "input", name: "value", message, validate },
  ]);
  return check(answers.value);
}

import { CliError } from "./output.js";

export interface PromptOptions {
  /** commander's --no-input sets input=false. */
  input?: boolean;
}

export const canPrompt = (opts: PromptOptions) => opts.input !== false && process.stdin.isTTY === true;

/** Validates one value: returns it (cleaned), or throws with the message to show. */
export type ValueValidator = (value: string) => string;

/** The validator's message for a value, or true when it passes (inquirer's `validate`). */
function verdict(validate: ValueValidator, value: string): true | string {
  try {
    validate(value);
    return true;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The flag's value if given; otherwise asks on a TTY, or fails naming the flag (with
 * --no-input, or when stdin is not a terminal). With a validator, a flag's invalid value
 * fails with its message, and the prompt asks again until the value passes.
 */
export async function valueOrAsk(
  opts: PromptOptions,
  value: string | undefined,
  flag: string,
  message: string,
  kind: "input" | "password" = "input",
  validate: ValueValidator = (v) => v,
): Promise<string> {
  if (value !== undefined) return validate(value);
  if (!canPrompt(opts)) throw new CliError(`missing ${flag} (pass it, or run in a terminal to be asked)`);
  // Loaded only when a prompt is shown: `chatd serve` never needs it.
  const { default: inquirer } = await import("inquirer");
  const validateAnswer = (answer: string) => verdict(validate, answer);
  const answers = await inquirer.prompt<{ value: string }>([
    kind === "password"
      ? { type: "password", name: "value", message, mask: "*", validate: validateAnswer }
      : { type: "input", name: "value", message, validate: validateAnswer },
  ]);
  return validate(answers.value);
}

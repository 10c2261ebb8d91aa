import { createProgram } from "./program.js";
import { handleCliError } from "./output.js";

export async function main(argv: string[]): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (err) {
    process.exitCode = handleCliError(err);
  }
}

await main(process.argv);

import { CliError } from "../../output.js";

/**
 * Why an archive cannot be imported: a damaged or foreign file, named (with the table and
 * field for a JSON problem) so the operator can find it. The import then leaves nothing behind.
 */
export class ImportRefused extends CliError {
  override name = "ImportRefused";
}

/** Where a value sits in the export: "realm.json: zerver_userprofile[3].full_name". */
export const at = (file: string, table: string, index: number, field?: string) =>
  `${file}: ${table}[${index}]${field === undefined ? "" : `.${field}`}`;

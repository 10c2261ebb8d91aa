import { createWriteStream, type WriteStream } from "node:fs";
import { once } from "node:events";
import { PRIVATE_FILE_MODE } from "../../db/private-files.js";

/**
 * A JSON document written as it is made: an object of named arrays, one row at a time,
 * waiting for the disk when its buffer is full. A table of any size never sits in memory.
 */
export class JsonTablesFile {
  private readonly out: WriteStream;
  private tables = 0;
  private rows = 0;

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: "wx", mode: PRIVATE_FILE_MODE });
    this.out.write("{");
  }

  private async put(text: string): Promise<void> {
    if (!this.out.write(text)) await once(this.out, "drain");
  }

  /** Starts the array `name`; rows follow through `row`. */
  async table(name: string): Promise<void> {
    if (this.tables > 0) await this.put("]");
    await this.put(`${this.tables > 0 ? "," : ""}\n${JSON.stringify(name)}:[`);
    this.tables++;
    this.rows = 0;
  }

  async row(value: unknown): Promise<void> {
    await this.put(`${this.rows > 0 ? "," : ""}\n${JSON.stringify(value)}`);
    this.rows++;
  }

  /** A whole small table at once. */
  async tableOf(name: string, rows: Iterable<unknown>): Promise<void> {
    await this.table(name);
    for (const row of rows) await this.row(row);
  }

  async close(): Promise<void> {
    this.out.end(this.tables > 0 ? "]\n}\n" : "}\n");
    await once(this.out, "finish");
  }
}

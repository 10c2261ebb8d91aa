import chalk from "chalk";

/** Progress on stderr: a bar redrawn in place on a terminal, one line per table otherwise (logs, CI). */
export interface Progress {
  advance(table: string, done: number, total: number): void;
  finish(table: string, rows: number): void;
}

const WIDTH = 30;

export function progressReporter(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) {
    return {
      advance() {},
      finish: (table, rows) => stream.write(`copied ${table}: ${rows} row(s)\n`),
    };
  }
  let last = 0;
  const draw = (table: string, done: number, total: number) => {
    const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
    const bar = chalk.green("█".repeat(filled)) + chalk.dim("░".repeat(WIDTH - filled));
    stream.write(`\r\x1b[2K${bar} ${table} ${done}/${total}`);
  };
  return {
    advance(table, done, total) {
      // Redrawing a terminal line per batch costs more than the batch on small tables.
      if (Date.now() - last < 100) return;
      last = Date.now();
      draw(table, done, total);
    },
    finish(table, rows) {
      draw(table, rows, rows);
      stream.write("\n");
    },
  };
}

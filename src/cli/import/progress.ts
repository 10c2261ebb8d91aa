import cliProgress from "cli-progress";
import type { ImportProgress } from "./zulip/import-realm.js";

/**
 * An import's progress on stderr: a bar per stage on a terminal (cli-progress), one line per
 * stage otherwise (logs, CI), so that a pipe never fills with redraws.
 */
export function importProgress(stream: NodeJS.WriteStream = process.stderr) {
  let stage: string | null = null;
  let bar: cliProgress.SingleBar | null = null;
  const end = () => {
    bar?.stop();
    bar = null;
  };
  return {
    update(p: ImportProgress): void {
      if (p.stage !== stage) {
        end();
        stage = p.stage;
        if (!stream.isTTY) {
          stream.write(`${p.stage}${p.total === null ? "" : ` (${p.total})`}\n`);
          return;
        }
        bar = new cliProgress.SingleBar(
          { format: `{bar} {value}/{total} ${p.stage}`, stream, hideCursor: true, clearOnComplete: false },
          cliProgress.Presets.shades_classic,
        );
        bar.start(p.total ?? 0, p.done);
        return;
      }
      if (bar) {
        if (p.total !== null) bar.setTotal(p.total);
        bar.update(p.done);
      }
    },
    finish: end,
  };
}

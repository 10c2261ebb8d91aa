"use strict";
// Mocha's spec reporter, plus the plain "N passed, N failed" line CI reads.
const Mocha = require("mocha");

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures } = runner.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed\n`);
    });
  }
}

module.exports = SummaryReporter;

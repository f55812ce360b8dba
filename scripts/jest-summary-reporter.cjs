// Appends each jest run's totals to $KUBELET_TS_TEST_SUMMARY so that scripts/test-all.sh can
// print one closing line for the whole repository ("N passed, N failed, N skipped").
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.KUBELET_TS_TEST_SUMMARY;
    if (!file) return;
    const line = [
      process.cwd(),
      results.numPassedTests,
      results.numFailedTests + results.numRuntimeErrorTestSuites,
      results.numPendingTests + results.numTodoTests,
    ].join('\t');
    fs.appendFileSync(file, `${line}\n`);
  }
}

module.exports = SummaryReporter;

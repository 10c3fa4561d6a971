// The closing line CI readers look for: "N passed, N failed". deploy/scripts/test.sh prints it last
// (from TEST_SUMMARY_FILE); a bare `jest` run prints it directly.
const fs = require('fs');
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${results.numPassedTests} passed, ${failed} failed\n`;
    if (process.env.TEST_SUMMARY_FILE) fs.writeFileSync(process.env.TEST_SUMMARY_FILE, line);
    else process.stdout.write(`\n${line}`);
  }
}
module.exports = SummaryReporter;

#!/usr/bin/env node
// Adds up jest's --json reports of the CI phases into one line of suites and one of tests.
// A suite reported skipped (an engine it needs is not there) is named, so it is never silently passed.
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
const suites = { passed: 0, failed: 0, skipped: 0 };
const tests = { passed: 0, failed: 0, skipped: 0 };
const skippedNames = [];
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    continue;
  }
  for (const suite of report.testResults) {
    const counts = suite.assertionResults.reduce((c, a) => ((c[a.status] = (c[a.status] ?? 0) + 1), c), {});
    tests.passed += counts.passed ?? 0;
    tests.failed += counts.failed ?? 0;
    tests.skipped += (counts.pending ?? 0) + (counts.skipped ?? 0) + (counts.todo ?? 0);
    if (suite.status === 'failed') suites.failed++;
    else if ((counts.passed ?? 0) === 0 && suite.assertionResults.length > 0) {
      suites.skipped++;
      const titles = new Set(suite.assertionResults.map((a) => a.ancestorTitles[0]).filter(Boolean));
      for (const t of titles) skippedNames.push(t);
    } else suites.passed++;
  }
}
for (const name of skippedNames) console.log(`skipped suite: ${name}`);
console.log(`suites: ${suites.passed} passed, ${suites.failed} failed, ${suites.skipped} skipped`);
console.log(`tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped`);

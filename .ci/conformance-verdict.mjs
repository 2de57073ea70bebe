// Judges a conformance run from its results folder: every check whose
// status is FAILURE must be excused by the baseline, as a whole scenario
// ("tools-call-sampling") or as one check ("server-stateless:check-id").
// Warnings are printed, not failed; a baseline entry that no longer fails
// fails the run, so that the list stays true and only shrinks.
//
//   node conformance-verdict.mjs RESULTS_DIR BASELINE.yml
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, baselineFile] = process.argv.slice(2);
const baseline = new Set(
  readFileSync(baselineFile, "utf8")
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter((l) => l.startsWith("- "))
    .map((l) => l.slice(2).trim()),
);

let passed = 0, failed = 0, warnings = 0;
const unexpected = [], excused = new Set();
for (const entry of readdirSync(dir).sort()) {
  const m = entry.match(/^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/);
  if (!m) continue;
  const scenario = m[1];
  const checks = JSON.parse(readFileSync(join(dir, entry, "checks.json"), "utf8"));
  for (const c of checks) {
    if (c.status === "SUCCESS") passed++;
    if (c.status === "WARNING") {
      warnings++;
      console.log(`warning: ${scenario}:${c.id}: ${c.errorMessage ?? ""}`);
    }
    if (c.status !== "FAILURE") continue;
    failed++;
    const whole = scenario, one = `${scenario}:${c.id}`;
    if (baseline.has(one)) excused.add(one);
    else if (baseline.has(whole)) excused.add(whole);
    else unexpected.push(`${one}: ${c.errorMessage ?? ""}`);
  }
}
const stale = [...baseline].filter((b) => !excused.has(b));
for (const b of stale) console.log(`STALE BASELINE ENTRY (it passes now: remove it from ${baselineFile}): ${b}`);
console.log(`checks: ${passed} passed, ${failed} failed (${failed - unexpected.length} expected), ${warnings} warnings`);
for (const u of unexpected) console.log(`UNEXPECTED FAILURE: ${u}`);
process.exit(unexpected.length || stale.length ? 1 : 0);

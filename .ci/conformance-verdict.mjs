// Judges a conformance run from its results folder: every check whose
// status is FAILURE must be excused by the baseline, as a whole scenario
// ("tools-call-sampling") or as one check ("server-stateless:check-id").
// Warnings are printed, not failed; baseline entries that no longer fail
// are printed as stale, so that the list can be kept true.
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
for (const b of baseline) if (!excused.has(b)) console.log(`stale baseline entry (it passes now): ${b}`);
console.log(`checks: ${passed} passed, ${failed} failed (${failed - unexpected.length} expected), ${warnings} warnings`);
for (const u of unexpected) console.log(`UNEXPECTED FAILURE: ${u}`);
process.exit(unexpected.length ? 1 : 0);

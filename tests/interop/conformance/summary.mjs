// Sums the conformance harness's checks.json files under a results directory (one directory per
// scenario run, as `conformance client -o DIR` writes them): checks passed and failed per
// scenario, with the failing checks named, then totals for the authorization scenarios
// (`auth/*`) and for all the others. `--json` prints the same as one JSON object.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = process.argv[2];
const asJson = process.argv.includes('--json');
const scenarios = {};

function record(name, checks) {
  const s = (scenarios[name] ??= { passed: 0, failed: 0, warnings: 0, skipped: 0, failures: [] });
  for (const c of checks) {
    if (c.status === 'SUCCESS') s.passed += 1;
    else if (c.status === 'FAILURE') {
      s.failed += 1;
      s.failures.push(`${c.id} ${c.name ?? ''}: ${c.errorMessage ?? ''}`.slice(0, 220));
    } else if (c.status === 'WARNING') s.warnings += 1;
    else if (c.status === 'SKIPPED') s.skipped += 1;
  }
}

function walk(d) {
  for (const entry of readdirSync(d)) {
    const path = join(d, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (entry === 'checks.json') {
      const name = relative(dir, d).replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
      record(name, JSON.parse(readFileSync(path, 'utf8')));
    }
  }
}
walk(dir);

const totals = {};
for (const [name, s] of Object.entries(scenarios)) {
  const group = name.startsWith('auth/') ? 'authorization' : 'other';
  const t = (totals[group] ??= { scenarios: 0, failing: 0, passed: 0, failed: 0, warnings: 0, skipped: 0 });
  t.scenarios += 1;
  if (s.failed > 0) t.failing += 1;
  for (const k of ['passed', 'failed', 'warnings', 'skipped']) t[k] += s[k];
}

if (asJson) {
  console.log(JSON.stringify({ totals, scenarios }));
} else {
  for (const [name, s] of Object.entries(scenarios).sort()) {
    if (s.failed === 0 || name.startsWith('auth/')) continue;
    console.log(`  ${name}: ${s.passed} passed, ${s.failed} failed`);
    for (const f of s.failures) console.log(`      ${f}`);
  }
  for (const [group, t] of Object.entries(totals).sort()) {
    console.log(
      `  ${group}: ${t.scenarios} scenarios (${t.failing} failing), ${t.passed} checks passed, ` +
        `${t.failed} failed, ${t.warnings} warnings, ${t.skipped} skipped`
    );
  }
}

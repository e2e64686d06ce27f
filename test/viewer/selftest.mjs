// Self-test of the viewer check: the good sample must load (exit 0) and the truncated sample must be
// rejected (exit 1, not 2), so a check that passes everything, or one that cannot start Chromium,
// is caught before it is trusted on real perfcc traces. Run with `npm test` in test/viewer.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cases = [
  ['samples/good.json', 0],
  ['samples/bad.json', 1],
  ['samples/zero-length.json', 0],
  ['samples/shared-timestamps.json', 0],
];
let failed = 0;
for (const [sample, want] of cases) {
  const r = spawnSync(process.execPath, [path.join(here, 'check-trace.mjs'), path.join(here, sample)], {
    encoding: 'utf8',
  });
  const ok = r.status === want;
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${sample}: exit ${r.status}, want ${want}`);
  if (!ok) process.stdout.write(r.stdout + r.stderr);
}
process.exit(failed ? 1 : 0);

// Proves that a perfcc trace loads in a real viewer: speedscope's own built app, served from
// node_modules on a loopback HTTP server, opened in headless Chromium with the trace passed as
// `#profileURL=`, exactly as a user opening the file in speedscope would. The verdict comes from
// speedscope itself (import log, error UI, alerts), and the evidence that the events were understood
// comes from speedscope's own export of what it imported (the documented speedscope JSON format),
// cross-checked against the trace: one profile per thread that has spans, every span with a duration
// there under its name (zero-length spans are not drawn), every span opened and closed, and the
// thread's time range to the nanosecond.
//
// Usage: node check-trace.mjs TRACE.json [--screenshot OUT.png] [--timeout-ms N] [--allow-warnings]
// Exit: 0 loaded, 1 the viewer rejected the trace (or the cross-check failed), 2 usage/setup error.
// Environment: CHROMIUM overrides the browser binary (default /usr/bin/chromium).

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const USAGE =
  'usage: node check-trace.mjs TRACE.json [--screenshot OUT.png] [--timeout-ms N] [--allow-warnings]';

function die(code, msg) {
  process.stderr.write(msg.endsWith('\n') ? msg : msg + '\n');
  process.exit(code);
}

function parseArgs(argv) {
  const opts = { trace: null, screenshot: null, timeoutMs: 30000, allowWarnings: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) die(2, `${a} needs a value\n${USAGE}`);
      return argv[++i];
    };
    if (a === '--screenshot') opts.screenshot = path.resolve(value());
    else if (a === '--timeout-ms') opts.timeoutMs = Number(value());
    else if (a === '--allow-warnings') opts.allowWarnings = true;
    else if (a === '-h' || a === '--help') die(0, USAGE);
    else if (a.startsWith('-')) die(2, `unknown option ${a}\n${USAGE}`);
    else if (opts.trace === null) opts.trace = a;
    else die(2, `only one trace per run\n${USAGE}`);
  }
  if (opts.trace === null) die(2, USAGE);
  if (!(opts.timeoutMs > 0)) die(2, '--timeout-ms must be a positive number');
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const tracePath = path.resolve(opts.trace);
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

let stat;
try {
  stat = fs.statSync(tracePath);
} catch (e) {
  die(2, `speedscope: cannot read ${opts.trace}: ${e.code || e.message}`);
}
if (!stat.isFile()) die(2, `speedscope: ${opts.trace} is not a regular file`);
if (!fs.existsSync(chromiumPath)) {
  die(2, `speedscope: no Chromium at ${chromiumPath} (install chromium: apt-get install chromium, or set CHROMIUM)`);
}

let speedscopeDir, speedscopeVersion, chromium;
try {
  const pkgDir = path.join(HERE, 'node_modules', 'speedscope');
  speedscopeVersion = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  speedscopeDir = path.join(pkgDir, 'dist', 'release');
  if (!fs.existsSync(path.join(speedscopeDir, 'index.html'))) throw new Error('no dist/release/index.html');
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  die(2, `speedscope: node modules missing in ${HERE} (run: cd ${HERE} && npm ci): ${e.message}`);
}

// Our own strict parse is a cross-check, not the verdict: if it fails we still let speedscope judge,
// so the failure report says what the viewer did with the file, and both reasons are printed.
let trace = null;
let traceParseError = null;
try {
  trace = JSON.parse(fs.readFileSync(tracePath, 'utf8'));
} catch (e) {
  traceParseError = e.message;
}

// ---- loopback server: speedscope's static files plus the trace ------------------------------

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

// The trace keeps its real basename in the URL because speedscope picks importers partly by file
// name (e.g. `*.chrome.json`); the user opening `prog.123.trace.json` gets the same code path.
const traceUrlPath = '/trace/' + encodeURIComponent(path.basename(tracePath));
let traceServed = false;

const server = http.createServer((req, res) => {
  const pathname = new URL(req.url, 'http://127.0.0.1').pathname;
  let file;
  if (pathname === traceUrlPath) {
    file = tracePath;
    traceServed = true;
  } else {
    file = path.join(speedscopeDir, pathname === '/' ? 'index.html' : decodeURIComponent(pathname));
    if (!file.startsWith(speedscopeDir + path.sep)) file = null;
  }
  if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', resolve);
});
const base = `http://127.0.0.1:${server.address().port}`;

// ---- browser --------------------------------------------------------------------------------

const t0 = Date.now();
let browser;
try {
  // Playwright adds --headless and a fresh temporary --user-data-dir itself (and refuses one in
  // args), so nothing from a previous run or a user's profile can influence the result.
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: opts.timeoutMs,
    args: [
      '--no-sandbox', // we often run as root in containers, where the sandbox cannot start
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
} catch (e) {
  server.close();
  die(2, `speedscope: cannot start Chromium at ${chromiumPath}: ${e.message.split('\n')[0]}`);
}

const consoleLines = [];
const dialogs = [];
const pageErrors = [];
let verdict = null; // {ok: false, reason} on failure, {ok: true, ...} on success

async function finish() {
  await browser.close().catch(() => {});
  server.close();
}

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(opts.timeoutMs);
  page.on('console', (m) => consoleLines.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // speedscope reports "Unrecognized format!" and "imported profile, but it's empty!" with alert();
  // an unanswered alert would hang the page, and the message is the failure reason.
  let dialogSeen;
  const dialogPromise = new Promise((resolve) => (dialogSeen = resolve));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    dialogSeen(d.message());
    d.dismiss().catch(() => {});
  });

  await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(base + traceUrlPath)}`);

  // Success: speedscope sets the title to "<name> - speedscope" and then shows the view tabs, which
  // only exist once a profile group is active. Failure: its "Something went wrong" error UI (thrown
  // importer) or an alert (no importer matched / empty profile). The loading bar is neither.
  const outcome = await Promise.race([
    page
      .waitForFunction(
        () => {
          const text = document.body ? document.body.innerText : '';
          if (text.includes('Something went wrong')) return 'error-ui';
          if (document.title.endsWith(' - speedscope') && text.includes('Time Order') && text.includes('Sandwich'))
            return 'loaded';
          return false;
        },
        null,
        { timeout: opts.timeoutMs, polling: 50 },
      )
      .then((h) => h.jsonValue())
      .catch(() => 'timeout'),
    dialogPromise.then((msg) => `dialog:${msg}`),
  ]);

  const importLine = consoleLines.find((l) => l.text.startsWith('Importing as '));
  const importedAs = importLine ? importLine.text.slice('Importing as '.length) : null;

  if (outcome !== 'loaded') {
    let reason;
    if (outcome === 'error-ui') {
      const failed = consoleLines.find((l) => l.text.startsWith('Failed to load format'));
      reason = `speedscope showed its import error ("Something went wrong")${failed ? ': ' + failed.text : ''}`;
    } else if (outcome.startsWith('dialog:')) {
      reason = `speedscope alert: "${outcome.slice('dialog:'.length)}"`;
    } else {
      reason = `no profile shown within ${opts.timeoutMs} ms${traceServed ? '' : ' (speedscope never fetched the trace)'}`;
    }
    if (pageErrors.length) reason += `; page errors: ${pageErrors.join(' | ')}`;
    verdict = { ok: false, reason };
    if (opts.screenshot) await page.screenshot({ path: opts.screenshot });
  } else {
    const title = await page.title();
    const canvases = await page.locator('canvas').count();
    if (opts.screenshot) await page.screenshot({ path: opts.screenshot });

    // speedscope's Export writes what it imported as a documented format (file-format-schema.json),
    // which is the least fragile way to read its view of the profile: no hashed CSS classes, no
    // virtualised tables, every thread and every span.
    // Ctrl+S is speedscope's Export shortcut; clicking a text match could hit a thread named "Export".
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Control+s')]);
    const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    verdict = { ok: true, title, canvases, importedAs, exported };
  }
} catch (e) {
  verdict = { ok: false, reason: `browser automation failed: ${e.message.split('\n')[0]}` };
} finally {
  await finish();
}
const elapsed = ((Date.now() - t0) / 1000).toFixed(1);

// ---- verdict --------------------------------------------------------------------------------

const label = `speedscope ${speedscopeVersion}`;
function fail(reason) {
  const jsonNote = traceParseError ? ` (JSON.parse: ${traceParseError})` : '';
  die(1, `${label}: FAILED ${opts.trace}: ${reason}${jsonNote}`);
}

if (!verdict.ok) fail(verdict.reason);

// The Trace Event importer is the one our format must hit; landing in another importer (collapsed
// stacks, perf script...) would mean speedscope misread the file even though something rendered.
if (verdict.importedAs !== 'Trace Event Format profile') {
  fail(`speedscope imported it as "${verdict.importedAs}", not as a Trace Event Format profile`);
}
if (verdict.canvases < 1) fail('profile loaded but no flamegraph canvas was rendered');
if (traceParseError) fail('speedscope accepted it, but the file is not strict JSON');

// Stack repairs mean spans on one thread overlap without nesting; speedscope papers over them, but
// the trace contract says children lie strictly inside their parents on the same thread.
const importerWarnings = consoleLines
  .filter((l) => l.type === 'warning' && /Tried to end|still open at end of profile|Ignoring/.test(l.text))
  .map((l) => l.text);

const { profiles, shared } = verdict.exported;
const frames = shared.frames;
const problems = [];

// What speedscope should have built, computed independently from the trace. Profile naming follows
// speedscope's Trace Event importer (process_name / thread_name metadata, pid and tid).
const events = Array.isArray(trace) ? trace : trace.traceEvents;
if (!Array.isArray(events)) fail('trace has no traceEvents array');
const procNames = new Map();
const threadNames = new Map();
// A span whose enter and exit fell on the same clock tick has duration 0: it happened, in less
// than one tick (about 10 ns on a TSC that steps, as some AMD EPYC machines' does), and the trace
// keeps it. speedscope draws no zero-length frame, so those are expected to be missing from its
// profile and nothing else is: every span with a duration must be there, name by name.
const threads = new Map(); // "pid:tid" -> {pid, tid, drawn: Map name->count, zero: Map, start, end}
const bump = (map, key) => map.set(key, (map.get(key) || 0) + 1);
for (const ev of events) {
  if (ev.ph === 'M' && ev.name === 'process_name' && ev.args?.name) procNames.set(ev.pid, ev.args.name);
  if (ev.ph === 'M' && ev.name === 'thread_name' && ev.args?.name) threadNames.set(`${ev.pid}:${ev.tid}`, ev.args.name);
  if (ev.ph !== 'X' && ev.ph !== 'B' && ev.ph !== 'E') continue;
  const key = `${ev.pid}:${ev.tid}`;
  let t = threads.get(key);
  if (!t) {
    t = { pid: ev.pid, tid: ev.tid, drawn: new Map(), zero: new Map(), spans: [], start: Infinity, end: -Infinity };
    threads.set(key, t);
  }
  const name = ev.name || '(unnamed)';
  if (ev.ph === 'X') t.spans.push(ev);
  if (ev.ph === 'X' && !(ev.dur > 0)) {
    bump(t.zero, name);
    continue;
  }
  const end = ev.ph === 'X' ? ev.ts + ev.dur : ev.ts;
  if (ev.ph !== 'E') bump(t.drawn, name);
  t.start = Math.min(t.start, ev.ts);
  t.end = Math.max(t.end, end);
}
const total = (map) => [...map.values()].reduce((a, b) => a + b, 0);

// A child that starts or ends on the same nanosecond as its parent, or a span that starts on the
// nanosecond its previous sibling ended (both within one clock tick, common on a TSC that steps
// 10 ns), is nested in the trace, but speedscope (1.25) orders equal
// timestamps by its own rule and can end the parent first; it then "repairs" a nesting that was
// right, closing frames late. Such ties are found here from the exact nanoseconds (and ends that
// its floating-point ts + dur would put in the wrong order). speedscope's warnings do not name a
// thread, so with ties in the trace its repair warnings are accepted; the time range is not
// compared on the threads that have ties, and only there; every span is still counted by name.
function ambiguousNesting(spans) {
  const ns = (us) => Math.round(us * 1000);
  const sorted = spans
    .map((e) => ({ e, start: ns(e.ts), end: ns(e.ts) + ns(e.dur) }))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const stack = [];
  let ties = 0;
  for (const s of sorted) {
    // A sibling that ended on the nanosecond this span starts (or whose
    // floating-point end passes this start) is a tie too: speedscope may
    // open this span before closing it.
    let touching = false;
    while (stack.length && stack[stack.length - 1].end <= s.start && stack[stack.length - 1].start < s.start) {
      const done = stack.pop();
      touching ||= done.end === s.start || done.e.ts + done.e.dur > s.e.ts;
    }
    if (touching) ties++;
    const parent = stack[stack.length - 1];
    if (parent && s.end <= parent.end &&
        (s.end === parent.end || s.start === parent.start || s.e.ts + s.e.dur > parent.e.ts + parent.e.dur)) {
      ties++;
    }
    stack.push(s);
  }
  return ties;
}
for (const t of threads.values()) t.inversions = ambiguousNesting(t.spans);
const inversions = [...threads.values()].reduce((a, t) => a + t.inversions, 0);
function expectedName(t) {
  const p = procNames.get(t.pid);
  const th = threadNames.get(`${t.pid}:${t.tid}`);
  if (p != null && th != null) return `${p} (pid ${t.pid}), ${th} (tid ${t.tid})`;
  if (p != null) return `${p} (pid ${t.pid}, tid ${t.tid})`;
  if (th != null) return `${th} (pid ${t.pid}, tid ${t.tid})`;
  return `pid ${t.pid}, tid ${t.tid}`;
}

// A thread whose spans are all zero-length has nothing to draw.
const drawnThreads = [...threads.values()].filter((t) => t.drawn.size > 0);
if (profiles.length !== drawnThreads.length) {
  problems.push(`speedscope shows ${profiles.length} profiles, the trace has ${drawnThreads.length} threads with spans`);
}
const byName = new Map(profiles.map((p) => [p.name, p]));
const details = [];
for (const t of drawnThreads) {
  const name = expectedName(t);
  const prof = byName.get(name);
  if (!prof) {
    problems.push(`no profile named "${name}" (speedscope has: ${profiles.map((p) => `"${p.name}"`).join(', ')})`);
    continue;
  }
  const opens = prof.events.filter((e) => e.type === 'O');
  const closes = prof.events.filter((e) => e.type === 'C');
  if (closes.length !== opens.length) problems.push(`${name}: ${opens.length} spans opened but ${closes.length} closed`);
  // speedscope names a frame "<name> <JSON of args>", so compare on the part before the args.
  const shownByName = new Map();
  for (const e of opens) bump(shownByName, frames[e.frame].name.replace(/ \{.*\}$/s, ''));
  for (const [span, want] of t.drawn) {
    const got = shownByName.get(span) || 0;
    // A viewer that does draw zero-length frames shows up to that many more; one span with a
    // duration fewer is a real loss.
    if (got < want || got > want + (t.zero.get(span) || 0)) {
      problems.push(`${name}: speedscope opened ${got} "${span}" spans, the trace has ${want} with a duration` +
        (t.zero.get(span) ? ` and ${t.zero.get(span)} of zero length` : ''));
    }
  }
  for (const [span, got] of shownByName) {
    if (!t.drawn.has(span) && got > (t.zero.get(span) || 0)) problems.push(`${name}: speedscope shows ${got} "${span}" spans the trace does not have`);
  }
  // speedscope rebases each thread to its first event; the span of time it shows must match ours to
  // well under a nanosecond, or ns precision was lost somewhere between our writer and the viewer.
  const want = t.end - t.start;
  const got = prof.endValue - prof.startValue;
  // Where speedscope may have mis-ordered equal timestamps, it closed frames late, so its range
  // says nothing about precision.
  if (prof.unit !== 'microseconds' || (!t.inversions && Math.abs(got - want) > 0.0005)) {
    problems.push(`${name}: speedscope's time range is ${got} ${prof.unit}, trace says ${want.toFixed(3)} microseconds`);
  }
  const zero = total(t.zero);
  details.push(`  ${name}: ${opens.length} spans, ${shownByName.size} distinct names, ${got.toFixed(3)} µs` +
    (zero ? ` (+${zero} zero-length, shorter than one clock tick, not drawn)` : '') +
    (t.inversions ? ` (${t.inversions} spans share a timestamp with their parent; range not compared)` : ''));
}
if (importerWarnings.length && !opts.allowWarnings && !inversions) {
  problems.push(`speedscope had to repair the span nesting (--allow-warnings to accept):\n    ${importerWarnings.slice(0, 10).join('\n    ')}`);
}
if (problems.length) fail(`loaded, but what speedscope shows does not match the trace:\n  ${problems.join('\n  ')}`);

const shown = profiles.slice(0, 8).map((p) => p.name);
if (profiles.length > shown.length) shown.push(`... ${profiles.length - shown.length} more`);
console.log(`${label}: loaded ${opts.trace}: ${profiles.length} profiles (${shown.join('; ')}) in ${elapsed}s`);
for (const d of details) console.log(d);
// Said out loud so nobody reads a pass as "counters and flows render too": speedscope has no view
// for them; Perfetto UI is the viewer that shows those.
const unshown = new Map();
for (const ev of events) if (!['X', 'B', 'E', 'M'].includes(ev.ph)) unshown.set(ev.ph, (unshown.get(ev.ph) || 0) + 1);
if (unshown.size) {
  console.log(`  not shown by speedscope (no view for them): ${[...unshown].map(([ph, n]) => `${n} "${ph}"`).join(', ')}`);
}
for (const w of importerWarnings) console.log(`  warning: ${w}`);
if (opts.screenshot) console.log(`  screenshot: ${opts.screenshot}`);
process.exit(0);

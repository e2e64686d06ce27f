// Proves that a flame graph written by `perfctl export --format flamegraph` works in a real browser:
// the SVG opened from disk in headless Chromium, as a user double-clicking it would. Checks that it
// parses, that its script runs without errors, that every frame is drawn (a visible box, and the
// topmost element at its centre is that frame), that the root frame spans the graph, that each
// function given with --expect is a frame, and that clicking a frame zooms to it (its box then spans
// the graph, frames outside it are hidden) and "Reset zoom" restores the whole graph.
//
// Usage: node check-flamegraph.mjs GRAPH.svg [--expect NAME]... [--zoom NAME] [--screenshot OUT.png]
//        [--timeout-ms N]
// Exit: 0 works, 1 the graph failed a check, 2 usage/setup error.
// Environment: CHROMIUM overrides the browser binary (default /usr/bin/chromium).

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const USAGE =
  'usage: node check-flamegraph.mjs GRAPH.svg [--expect NAME]... [--zoom NAME] [--screenshot OUT.png] [--timeout-ms N]';

function die(code, msg) {
  process.stderr.write(msg.endsWith('\n') ? msg : msg + '\n');
  process.exit(code);
}

const opts = { svg: null, expect: [], zoom: null, screenshot: null, timeoutMs: 30000 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => {
    if (i + 1 >= argv.length) die(2, `${a} needs a value\n${USAGE}`);
    return argv[++i];
  };
  if (a === '--expect') opts.expect.push(value());
  else if (a === '--zoom') opts.zoom = value();
  else if (a === '--screenshot') opts.screenshot = path.resolve(value());
  else if (a === '--timeout-ms') opts.timeoutMs = Number(value());
  else if (a === '-h' || a === '--help') die(0, USAGE);
  else if (a.startsWith('-')) die(2, `unknown option ${a}\n${USAGE}`);
  else if (opts.svg === null) opts.svg = a;
  else die(2, `only one graph per run\n${USAGE}`);
}
if (opts.svg === null) die(2, USAGE);
const svgPath = path.resolve(opts.svg);
if (!fs.existsSync(svgPath)) die(2, `flamegraph: cannot read ${opts.svg}`);
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromiumPath)) die(2, `flamegraph: no Chromium at ${chromiumPath}`);

const { chromium } = await import('playwright-core');
let browser;
try {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: opts.timeoutMs,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
} catch (e) {
  die(2, `flamegraph: cannot start Chromium at ${chromiumPath}: ${e.message.split('\n')[0]}`);
}

const failures = [];
const fail = (msg) => failures.push(msg);
const pageErrors = [];
const report = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(opts.timeoutMs);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(pathToFileURL(svgPath).href);

  // An XML error makes Chromium show a parsererror document instead of the SVG.
  const root = await page.evaluate(() => ({
    tag: document.documentElement.tagName,
    parseError: document.getElementsByTagName('parsererror').length > 0,
  }));
  if (root.tag.toLowerCase() !== 'svg' || root.parseError) {
    fail(`the file did not parse as SVG (root <${root.tag}>)`);
    throw new Error('stop');
  }

  // Every frame: a visible box of the width its rect says, on top at its centre.
  const frames = await page.evaluate(() =>
    [...document.querySelectorAll('g.f')].map((g) => {
      const box = g.querySelector('rect').getBoundingClientRect();
      const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
      const top = document.elementFromPoint(cx, cy);
      return {
        name: g.dataset.n, depth: +g.dataset.d, width: box.width, height: box.height,
        onTop: top !== null && top.closest('g.f') === g,
        shown: getComputedStyle(g).display !== 'none',
        title: g.querySelector('title')?.textContent ?? '',
      };
    }),
  );
  if (frames.length === 0) fail('no frames');
  const roots = frames.filter((f) => f.depth === 0);
  if (roots.length !== 1) fail(`${roots.length} root frames, expected 1`);
  else if (Math.abs(roots[0].width - 1200) > 1) fail(`the root frame is ${roots[0].width} px wide, not 1200`);
  let hidden = 0;
  for (const f of frames) {
    if (!f.shown || f.width <= 0 || f.height <= 0) fail(`frame ${f.name} (depth ${f.depth}) is not drawn`);
    // A frame under a pixel wide can be covered by its neighbour's antialiasing.
    else if (f.width >= 2 && !f.onTop) hidden++;
    if (!f.title.startsWith(f.name + ' (')) fail(`frame ${f.name} has no tooltip naming it`);
  }
  if (hidden) fail(`${hidden} frames are covered by something else`);
  for (const name of opts.expect)
    if (!frames.some((f) => f.name === name)) fail(`no frame for ${name}`);
  const threads = frames.filter((f) => f.depth === 1).length;
  report.push(`${frames.length} frames drawn, ${threads} thread(s), depth ${Math.max(...frames.map((f) => f.depth))}`);
  // The graph alone, not the empty page around it.
  if (opts.screenshot) await page.locator('svg').first().screenshot({ path: opts.screenshot });

  // Zoom: a click on a frame stretches it across the graph and hides what is outside it.
  const target = opts.zoom ?? frames.filter((f) => f.depth >= 2).sort((a, b) => b.width - a.width)[0]?.name;
  if (target) {
    const index = await page.evaluate((name) =>
      [...document.querySelectorAll('g.f')].findIndex((g) => g.dataset.n === name), target);
    if (index < 0) fail(`no frame ${target} to zoom to`);
    else {
      const handle = (await page.$$('g.f'))[index];
      const before = await handle.evaluate((g) => g.querySelector('rect').getBoundingClientRect().width);
      await handle.evaluate((g) => g.dispatchEvent(new MouseEvent('click', { bubbles: true })));
      const after = await page.evaluate((i) => {
        const gs = [...document.querySelectorAll('g.f')];
        return {
          width: gs[i].querySelector('rect').getBoundingClientRect().width,
          hidden: gs.filter((g) => getComputedStyle(g).display === 'none').length,
          reset: getComputedStyle(document.getElementById('reset')).display !== 'none',
        };
      }, index);
      if (Math.abs(after.width - 1200) > 1) fail(`zoomed to ${target}, its frame is ${after.width} px wide, not 1200`);
      if (!after.reset) fail('zoomed, but "Reset zoom" is not shown');
      await page.evaluate(() => document.getElementById('reset').dispatchEvent(new MouseEvent('click')));
      const back = await page.evaluate(() =>
        [...document.querySelectorAll('g.f')].filter((g) => getComputedStyle(g).display === 'none').length);
      if (back !== 0) fail(`after "Reset zoom" ${back} frames are still hidden`);
      const restored = await handle.evaluate((g) => g.querySelector('rect').getBoundingClientRect().width);
      if (Math.abs(restored - before) > 0.5) fail(`after "Reset zoom" ${target} is ${restored} px wide, was ${before}`);
      report.push(`zoom to ${target}: ${before.toFixed(1)} px -> ${after.width.toFixed(1)} px, ${after.hidden} frames hidden, reset restores all`);
    }
  }
} catch (e) {
  if (e.message !== 'stop') fail(`browser: ${e.message.split('\n')[0]}`);
} finally {
  await browser.close().catch(() => {});
}
for (const e of pageErrors) fail(`script error: ${e}`);
if (failures.length) {
  for (const f of failures) process.stderr.write(`flamegraph: ${opts.svg}: ${f}\n`);
  process.exit(1);
}
console.log(`flamegraph: ${opts.svg} works in Chromium`);
for (const line of report) console.log(`  ${line}`);
if (opts.screenshot) console.log(`  screenshot: ${opts.screenshot}`);

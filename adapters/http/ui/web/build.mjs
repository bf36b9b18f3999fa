// Builds the page into ../dist: one hashed JavaScript bundle, the layout
// worker's hashed script (whose name the bundle is given), one hashed
// stylesheet and index.html naming them. The Go package embeds ../dist, so
// the output is committed; esbuild is deterministic, so the same sources
// and lock file give the same bytes (e2e checks that the committed build is
// fresh). Run through `make ui`; `node build.mjs DIR` builds into DIR instead.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, '..', 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

const common = {
  bundle: true,
  minify: true,
  target: ['chrome100', 'firefox100', 'safari15.4'],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
};
const names = (r) => Object.keys(r.metafile.outputs).map((p) => basename(p));

// The layout worker first: a classic script, so that every browser can
// start it, and its name goes into the page's bundle.
const worker = await build({ ...common, entryPoints: { layout: join(here, 'src', 'layout', 'worker.js') }, format: 'iife' });
const workerJS = names(worker).find((f) => f.endsWith('.js'));
if (!workerJS) throw new Error(`build: the worker gave no .js: ${names(worker).join(', ')}`);

const page = await build({
  ...common,
  entryPoints: { app: join(here, 'src', 'main.jsx') },
  format: 'esm',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { KG_LAYOUT_WORKER: JSON.stringify(workerJS) },
});

const outputs = names(page);
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
if (!js || !css) throw new Error(`build: want one .js and one .css, got ${outputs.join(', ')}`);
const html = readFileSync(join(here, 'index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css);
writeFileSync(join(out, 'index.html'), html);
for (const r of [page, worker]) {
  for (const [p, o] of Object.entries(r.metafile.outputs)) {
    console.log(`${basename(p).padEnd(28)} ${(o.bytes / 1024).toFixed(1)} KiB`);
  }
}

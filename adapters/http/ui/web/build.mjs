// Builds the page into ../dist: one hashed JavaScript bundle, one hashed
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

const result = await build({
  entryPoints: { app: join(here, 'src', 'main.jsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome100', 'firefox100', 'safari15.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
if (!js || !css) throw new Error(`build: want one .js and one .css, got ${outputs.join(', ')}`);
const html = readFileSync(join(here, 'index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css);
writeFileSync(join(out, 'index.html'), html);
for (const [p, o] of Object.entries(result.metafile.outputs)) {
  console.log(`${basename(p).padEnd(28)} ${(o.bytes / 1024).toFixed(1)} KiB`);
}

// Builds the action into a folder (dist/ by default), emptied first so that no chunk of an
// earlier build lingers: `node scripts/bundle.mjs [folder]`. TypeScript only transpiles here
// (a third of the time of a build that type-checks too); the type check in npm test checks the types.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { minify } from 'terser'

// ncc's command line, run by this Node: no npx in between (a second of start-up, and on Windows
// npx is a .cmd that execFile cannot start).
const ncc = fileURLToPath(new URL('../node_modules/@vercel/ncc/dist/ncc/cli.js', import.meta.url))

const out = process.argv[2] ?? 'dist'
rmSync(out, { recursive: true, force: true })
execFileSync(
  process.execPath,
  [
    ncc,
    'build',
    'src/index.ts',
    '-o',
    out,
    '--minify',
    '--target',
    'es2022',
    '--no-source-map-register',
    '--license',
    'licenses.txt',
    '--transpile-only',
    // No build cache: writing it cost every build a second or more of CPU, and a build that
    // found it was no faster (measured 2026-11-25: 10.5 s of CPU with it, twice; 9 s without).
    '--no-cache'
  ],
  { stdio: 'inherit' }
)

// The entry chunk, which every run loads and compiles, also gets terser's compress pass. ncc
// minifies with compress off (names mangled, nothing removed), which leaves every export of
// @actions/core a run never calls (getIDToken, exportVariable, group...) in the entry; compress
// drops that dead code and folds constants: 61.5 KB became 56 KB (measured 2026-11-25). Names
// of functions and classes are kept, as ncc keeps them. The chunks loaded on demand keep ncc's
// minification: a pass over them (1.6 MB, most of it third-party) would add seconds to every
// build for code most runs never load.
const entry = join(out, 'index.js')
const compressed = await minify(readFileSync(entry, 'utf8'), {
  module: true,
  compress: { passes: 2 },
  mangle: { keep_classnames: true, keep_fnames: true },
  format: { comments: false }
})
if (compressed.code === undefined) throw new Error('terser returned no code for the entry chunk')
writeFileSync(entry, compressed.code)

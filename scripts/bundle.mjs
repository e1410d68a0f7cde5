// Builds the action into a folder (dist/ by default), emptied first so that no chunk of an earlier
// build lingers: `node scripts/bundle.mjs [folder]`. TypeScript only transpiles here (a third of
// the time of a build that type-checks too); the type check in npm test checks the types.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

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

// `npm test`: the static checks at once (ESLint, Prettier, the type check, and Node 24 made
// ready for the end-to-end tests), each one's output shown whole when it ends; then, when all
// passed, the tests (vitest). At once because each check is a process of its own that spends
// most of its time starting up: in a row they took half as long again as the longest of them.
// ESLint, Prettier and tsc keep caches in node_modules/.cache, so a second run checks only what
// changed (a fresh clone, as in CI, starts without them).
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = name => fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url))

const CACHE = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url))

const CHECKS = [
  ['eslint .', [bin('eslint/bin/eslint.js'), '--cache', '--cache-location', `${CACHE}eslint/`, '.']],
  [
    'prettier --check .',
    [
      bin('prettier/bin/prettier.cjs'),
      '--check',
      '--cache',
      '--cache-strategy',
      'content',
      '--cache-location',
      `${CACHE}prettier/checked`,
      '.'
    ]
  ],
  [
    'tsc -p tsconfig.test.json',
    [bin('typescript/bin/tsc'), '-p', 'tsconfig.test.json', '--incremental', '--tsBuildInfoFile', `${CACHE}tsc/test.tsbuildinfo`]
  ],
  ['node scripts/node24.mjs', ['scripts/node24.mjs']]
]

/** Runs `node args…`, keeping its output; resolves with its exit code and output. */
function run(args) {
  return new Promise(resolve => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks = []
    child.stdout.on('data', chunk => chunks.push(chunk))
    child.stderr.on('data', chunk => chunks.push(chunk))
    child.on('error', error => resolve({ code: 1, output: String(error) }))
    child.on('close', code => resolve({ code: code ?? 1, output: Buffer.concat(chunks).toString() }))
  })
}

const started = Date.now()
const results = await Promise.all(
  CHECKS.map(async ([label, args]) => {
    const result = await run(args)
    process.stdout.write(`\n> ${label}\n${result.output}`)
    return { label, ...result }
  })
)
const failed = results.filter(result => result.code !== 0)
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.map(result => result.label).join(', ')}. The tests were not run.`)
  process.exit(1)
}
console.log(`\nChecks passed in ${((Date.now() - started) / 1000).toFixed(1)} s; now the tests.\n`)
const tests = spawn(process.execPath, [bin('vitest/vitest.mjs'), 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
tests.on('close', code => process.exit(code ?? 1))

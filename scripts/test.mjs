// `npm test`: Node 24 made ready for the end-to-end tests, then the tests (vitest) and the static
// checks (ESLint, Prettier, the type check) side by side. The checks run at a lower priority:
// the tests spend much of their time waiting on sockets and child processes, and the checks use
// the cores the tests leave idle, without slowing the tests that measure time. In a row, a
// fresh clone's checks (no caches) came before every test and made the run half as long again.
// Each check's output is shown whole once the tests end; the run fails when a test or a check
// does. The type check is TypeScript 5.9's, the one compiler ncc's loader and typescript-eslint
// can load: TypeScript 7's native one checked a fresh clone in 1.0 s of CPU where 5.9 takes 6.3 s,
// but made `npm test` only 1.4 to 2.4 s shorter (14.4 to 16.0 s against 16.8 to 17.4 s, measured
// 2026-11-29), less than a second compiler is worth. ESLint, Prettier and tsc keep caches in
// node_modules/.cache, so a second run checks only what changed (a fresh clone, as in CI, starts
// without them).
import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = name => fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url))

const CACHE = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url))

const CHECKS = [
  [
    'eslint .',
    [bin('eslint/bin/eslint.js'), '--cache', '--cache-location', `${CACHE}eslint/`, '.']
  ],
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
    [
      bin('typescript/bin/tsc'),
      '-p',
      'tsconfig.test.json',
      '--incremental',
      '--tsBuildInfoFile',
      `${CACHE}tsc/test.tsbuildinfo`
    ]
  ]
]

/**
 * Below the tests' priority, so that a check takes only what the tests leave (19 is the lowest).
 */
const CHECK_PRIORITY = 10

/** Runs `node args…`, keeping its output; resolves with its exit code and output. */
function run(args, priority) {
  return new Promise(resolve => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    if (priority !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, priority)
      } catch {
        // Not allowed here: the check runs at the tests' priority.
      }
    }
    const chunks = []
    child.stdout.on('data', chunk => chunks.push(chunk))
    child.stderr.on('data', chunk => chunks.push(chunk))
    child.on('error', error => resolve({ code: 1, output: String(error) }))
    child.on('close', code =>
      resolve({ code: code ?? 1, output: Buffer.concat(chunks).toString() })
    )
  })
}

// The end-to-end tests need Node 24, which vitest.config.ts looks for as it loads: first.
const [node24Label, node24Args] = ['node scripts/node24.mjs', ['scripts/node24.mjs']]
const node24 = await run(node24Args)
process.stdout.write(`> ${node24Label}\n${node24.output}`)
if (node24.code !== 0) {
  console.error(`\nFailed: ${node24Label}. The tests were not run.`)
  process.exit(1)
}

const started = Date.now()
const checks = Promise.all(
  CHECKS.map(async ([label, args]) => ({ label, ...(await run(args, CHECK_PRIORITY)) }))
)
const tests = await new Promise(resolve => {
  const child = spawn(
    process.execPath,
    [bin('vitest/vitest.mjs'), 'run', ...process.argv.slice(2)],
    { cwd: root, stdio: 'inherit' }
  )
  child.on('error', () => resolve(1))
  child.on('close', code => resolve(code ?? 1))
})
const results = await checks
for (const result of results) process.stdout.write(`\n> ${result.label}\n${result.output}`)
const failed = [
  ...results.filter(result => result.code !== 0).map(result => result.label),
  ...(tests === 0 ? [] : ['the tests'])
]
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(', ')}.`)
  process.exit(1)
}
console.log(
  `\nThe tests and the checks (${results.map(result => result.label).join(', ')}) passed in ${((Date.now() - started) / 1000).toFixed(1)} s.`
)

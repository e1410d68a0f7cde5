/**
 * dist/ is the bundle of the committed source: a workflow runs dist/, so a change to src/
 * without a rebuild would ship the old action. scripts/check-dist.mjs builds the source into
 * a temporary folder and compares; here it runs beside the other tests. CHECK_DIST=skip leaves
 * it to a CI job of its own (the GitHub workflow checks dist/ once, not in every matrix cell).
 */
import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/action.js'

describe.skipIf(process.env['CHECK_DIST'] === 'skip')('dist/', () => {
  it('is the build of the committed source', () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'scripts/check-dist.mjs')], { cwd: ROOT, encoding: 'utf8' })
    expect(check.stderr + check.stdout).toMatch(/dist\/ matches a fresh build/)
    expect(check.status).toBe(0)
  }, 120_000)
})

describe('the entry chunk', () => {
  // Every run loads and compiles dist/index.js; what only some runs need is a chunk loaded on
  // demand (the record reader, the manifest reader, Discord, vote mode, the key check...).
  it('stays within 60 KB', () => {
    const size = statSync(join(ROOT, 'dist/index.js')).size
    expect(size, `dist/index.js is ${size} bytes`).toBeLessThanOrEqual(60_000)
  })
})

/**
 * The house's weight against its budgets, each figure printed: lines of src/ (wc -l over
 * src/**\/*.ts), test/ against src/, and the words a reader meets (README; README, docs/,
 * CONTRIBUTING and SECURITY together; CHANGELOG not counted, HTML tags not words).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/action.js'

const SRC_BUDGET = 4_200
const TEST_RATIO_BUDGET = 2.5
const README_WORDS = 2_000
const DOCS_WORDS = 9_000

function files(dir: string, ending: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory() ? files(join(dir, entry.name), ending) : entry.name.endsWith(ending) ? [join(dir, entry.name)] : []
  )
}

/** Lines as wc -l counts them: line ends. */
const lines = (dir: string): number =>
  files(join(ROOT, dir), '.ts').reduce((sum, file) => sum + (readFileSync(file, 'utf8').match(/\n/g)?.length ?? 0), 0)

const words = (...paths: string[]): number =>
  paths.reduce(
    (sum, path) =>
      sum +
      readFileSync(join(ROOT, path), 'utf8')
        .replace(/<[^>]*>/g, ' ')
        .split(/\s+/)
        .filter(Boolean).length,
    0
  )

describe('the budgets', () => {
  const src = lines('src')
  const test = lines('test')
  const docs = ['README.md', ...files(join(ROOT, 'docs'), '.md').map(file => file.slice(ROOT.length + 1)), 'CONTRIBUTING.md', 'SECURITY.md']
  console.log(
    `src/ ${src} lines (budget ${SRC_BUDGET}); test/ ${test} lines, ${(test / src).toFixed(2)}x src/ (budget ${TEST_RATIO_BUDGET}x); ` +
      `README ${words('README.md')} words (budget ${README_WORDS}); README, docs/, CONTRIBUTING and SECURITY ${words(...docs)} words (budget ${DOCS_WORDS})`
  )

  it('words: README and the docs within their budgets', () => {
    expect(words('README.md')).toBeLessThanOrEqual(README_WORDS)
    expect(words(...docs)).toBeLessThanOrEqual(DOCS_WORDS)
  })

  it('code: src/ and test/ within their budgets', () => {
    expect(src).toBeLessThanOrEqual(SRC_BUDGET)
    expect(test).toBeLessThanOrEqual(TEST_RATIO_BUDGET * src)
  })
})

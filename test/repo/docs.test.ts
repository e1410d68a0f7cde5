/**
 * docs/troubleshooting.md carries the outcome tables of src/ as `npm run docs` writes them: this
 * pins every outcome's headline and words once, and fails when the page and the code differ.
 */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { generate, PAGE } from '../../scripts/docs.js'

it('docs/troubleshooting.md holds the outcome tables as npm run docs writes them', () => {
  const page = readFileSync(PAGE, 'utf8')
  expect(page.match(/<!-- generated: \w+ -->/g)).toEqual([
    '<!-- generated: stats -->',
    '<!-- generated: schedule -->',
    '<!-- generated: keys -->',
    '<!-- generated: votes -->'
  ])
  expect(generate(page), 'run npm run docs').toBe(page)
})

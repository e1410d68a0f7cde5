/**
 * The pages `npm run docs` writes hold what it writes: docs/troubleshooting.md the outcome tables
 * of src/, which pins every outcome's headline and words once; README.md the inputs and outputs of
 * action.yml. Each fails when the page and its source differ.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { generate } from '../../scripts/docs.js'
import { ROOT } from '../support/action.js'

it.each([
  { file: 'docs/troubleshooting.md', sections: ['stats', 'schedule', 'keys', 'votes'] },
  { file: 'README.md', sections: ['inputs', 'outputs'] }
])('$file holds its $sections tables as npm run docs writes them', ({ file, sections }) => {
  const page = readFileSync(join(ROOT, file), 'utf8')
  expect(page.match(/<!-- generated: \w+ -->/g)).toEqual(
    sections.map(name => `<!-- generated: ${name} -->`)
  )
  expect(generate(file, page), 'run npm run docs').toBe(page)
})

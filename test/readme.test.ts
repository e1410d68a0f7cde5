/**
 * README.md against the contract and the code, so the documentation cannot drift silently:
 * - its Inputs and Outputs tables list exactly action.yml's inputs and outputs, with
 *   action.yml's defaults;
 * - every message quoted under "Troubleshooting" still occurs in src/, and every message
 *   the source builds from a fixed text is quoted there.
 */
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

interface ActionYml {
  inputs: Record<string, { default?: unknown }>
  outputs: Record<string, unknown>
}

const readme = (): Promise<string> => readFile(join(ROOT, 'README.md'), 'utf8')
const action = async (): Promise<ActionYml> => parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as ActionYml

/** Every TypeScript file under src/, concatenated. */
async function sourceText(): Promise<string> {
  const files = (await readdir(join(ROOT, 'src'), { recursive: true })).filter(name => name.endsWith('.ts')).sort()
  const texts = await Promise.all(files.map(name => readFile(join(ROOT, 'src', name), 'utf8')))
  return texts.join('\n')
}

/** The source with string concatenations joined (`'...' +\n '...'` becomes one text), as messages print. */
function joined(source: string): string {
  return source.replace(/(['"`])\s*\+\s*(['"`])/g, '')
}

/** A Markdown table row's cells, split on pipes that a backslash does not escape. */
function cells(line: string): string[] {
  const out: string[] = []
  let current = ''
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (ch === '\\' && line[i + 1] === '|') {
      current += '|'
      i++
    } else if (ch === '|') {
      out.push(current.trim())
      current = ''
    } else current += ch
  }
  return out.slice(1)
}

/** The body rows of every table whose header's first cells are `header`, within `text`. */
function tables(text: string, header: string[]): string[][] {
  const lines = text.split('\n')
  const rows: string[][] = []
  lines.forEach((line, i) => {
    const head = line.startsWith('|') ? cells(line).map(cell => cell.toLowerCase()) : []
    if (!header.every((name, j) => head[j] === name.toLowerCase())) return
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) rows.push(cells(lines[j]!))
  })
  return rows
}

/** `name` from a cell holding `` `name` ``; empty for an empty cell. */
function unquote(cell: string): string {
  return cell.replace(/^`(.*)`$/, '$1')
}

/** A README section, from its `## heading` to the next `## `. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`)
  expect(start, `README.md has a "## ${heading}" section`).toBeGreaterThanOrEqual(0)
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

/** What differs between two name lists, for a failure message. */
function difference(label: string, documented: string[], declared: string[]): string[] {
  const missing = declared.filter(name => !documented.includes(name)).map(name => `${label} ${name}: in action.yml, missing from README.md`)
  const extra = documented.filter(name => !declared.includes(name)).map(name => `${label} ${name}: in README.md, not in action.yml`)
  const twice = documented.filter((name, i) => documented.indexOf(name) !== i).map(name => `${label} ${name}: listed twice in README.md`)
  return [...missing, ...extra, ...twice]
}

describe('README.md tables against action.yml', () => {
  it('lists every input, and only those, with its default', async () => {
    const [text, meta] = await Promise.all([readme(), action()])
    const rows = tables(text, ['Input', 'Default', 'Description'])
    const documented = rows.map(row => unquote(row[0]!))
    const problems = difference('input', documented, Object.keys(meta.inputs))
    for (const row of rows) {
      const name = unquote(row[0]!)
      const declared = meta.inputs[name]
      if (declared === undefined) continue
      const expected = declared.default === undefined ? '' : String(declared.default)
      const shown = unquote(row[1] ?? '')
      if (shown !== expected)
        problems.push(`input ${name}: README.md default ${JSON.stringify(shown)}, action.yml default ${JSON.stringify(expected)}`)
      if ((row[2] ?? '') === '') problems.push(`input ${name}: no description in README.md`)
    }
    expect(problems, problems.join('\n')).toEqual([])
    expect(documented.length).toBeGreaterThanOrEqual(14)
  })

  it('lists every output, and only those', async () => {
    const [text, meta] = await Promise.all([readme(), action()])
    const rows = tables(text, ['Output', 'Description'])
    const documented = rows.map(row => unquote(row[0]!))
    const problems = difference('output', documented, Object.keys(meta.outputs))
    for (const row of rows) if ((row[1] ?? '') === '') problems.push(`output ${unquote(row[0]!)}: no description in README.md`)
    expect(problems, problems.join('\n')).toEqual([])
    expect(documented.length).toBeGreaterThanOrEqual(8)
  })
})

/**
 * The fixed parts of a quoted message: `<…>` marks a part that varies and `…` text left out,
 * so the text between them is printed as it stands. Quotes, brackets and punctuation at the
 * edges of a part are left to the placeholder next to them.
 */
function fixedParts(message: string): string[] {
  return message
    .split(/<[^<>]*>|…/)
    .map(part => part.replace(/^[\s.,;:'"()]+|[\s.,;:'"()]+$/g, ''))
    .filter(part => part !== '')
}

/** `Input 'name' ...` is how InputError prints every refused input (src/errors.ts). */
const INPUT_ERROR = /^Input '([a-z-]+)' /

/** The messages quoted in the first cell of the Troubleshooting tables. */
async function documentedMessages(): Promise<string[]> {
  const troubleshooting = section(await readme(), 'Troubleshooting')
  return tables(troubleshooting, ['Message starts with']).map(row => {
    const quoted = /^`([^`]+)`$/.exec(row[0]!)
    expect(quoted, `one code span in the first cell of: ${row.join(' | ')}`).not.toBeNull()
    return quoted![1]!
  })
}

describe('README.md troubleshooting against src/', () => {
  it('quotes messages that src/ still prints', async () => {
    const [messages, source, meta] = await Promise.all([documentedMessages(), sourceText(), action()])
    const text = joined(source)
    expect(messages.length).toBeGreaterThanOrEqual(60)
    expect(source, 'InputError prints "Input \'<name>\' <problem>. <fix>"').toMatch(/`Input '\$\{input\}' \$\{problem\}\. \$\{fix\}`/)

    const stale: string[] = []
    for (const message of messages) {
      let rest = message
      const input = INPUT_ERROR.exec(message)
      if (input !== null) {
        if (!(input[1]! in meta.inputs)) stale.push(`${message}\n    names '${input[1]}', which is not an input in action.yml`)
        rest = message.slice(input[0].length)
      }
      const missing = fixedParts(rest).filter(part => !text.includes(part))
      if (missing.length > 0) stale.push(`${message}\n    not in src/: ${missing.map(part => JSON.stringify(part)).join(', ')}`)
    }
    expect(stale, `Messages quoted in README.md's Troubleshooting that src/ no longer prints:\n${stale.join('\n')}`).toEqual([])
  })

  it('quotes every message that src/ builds from a fixed text', async () => {
    const [text, source] = await Promise.all([readme(), sourceText()])
    const documented = section(text, 'Troubleshooting').replace(/\s+/g, ' ')
    // The message argument of each error and annotation, when it is a string or template literal:
    // InputError's problem (its second argument), the first argument of the others.
    const literal = /('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)/.source
    const calls = [
      new RegExp(String.raw`new InputError\(\s*[^,]+,\s*${literal}`, 'g'),
      new RegExp(String.raw`new (?:ActionError|DeadlineError)\(\s*${literal}`, 'g'),
      new RegExp(String.raw`(?<![\w.])(?:core\.)?(?:warning|notice)\(\s*${literal}`, 'g')
    ]
    const undocumented: string[] = []
    for (const call of calls) {
      for (const match of source.matchAll(call)) {
        // The message's first fixed text of some length: what a reader would search for.
        const part = match[1]!
          .slice(1, -1)
          .split(/\$\{[^}]*\}/)
          .filter(piece => !piece.includes('${'))
          .map(piece => piece.replace(/^[\s.,;:'"()]+|[\s.,;:'"()]+$/g, ''))
          .find(piece => piece.length >= 12)
        if (part === undefined) continue
        const start = part.slice(0, 30).trim()
        if (!documented.includes(start)) undocumented.push(`${JSON.stringify(start)} (from ${match[0].slice(0, 60).replace(/\s+/g, ' ')}…)`)
      }
    }
    expect(undocumented, `Messages in src/ that README.md's Troubleshooting does not quote:\n${undocumented.join('\n')}`).toEqual([])
  })
})

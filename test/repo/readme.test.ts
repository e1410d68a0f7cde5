/**
 * README.md, CONTRIBUTING.md and docs/ against the contract, the code and each other, so the
 * documentation cannot drift silently:
 * - action.yml declares every input and output of the fixed interface, with its defaults (the
 *   README's tables are written from action.yml: docs.test.ts);
 * - every message quoted in docs/troubleshooting.md still occurs in src/, and every message the
 *   source builds from a fixed text (and every failed run's headline) is quoted there;
 * - the README stays short (at most 20 KB), opens with what the action does and a picture of
 *   the job summary, and gives the quick start before any contributor command;
 * - every relative link resolves to a file, and every #anchor to a heading of that file.
 * The YAML examples are checked with GitHub's parser (github-parser.test.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
const TROUBLESHOOTING = 'docs/troubleshooting.md'
const action = parse(read('action.yml')) as {
  inputs: Record<string, { default?: unknown }>
  outputs: Record<string, unknown>
}

/** Every TypeScript file under src/, concatenated. */
const sourceText = (): string =>
  readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter(name => name.endsWith('.ts'))
    .sort()
    .map(name => read(`src/${name}`))
    .join('\n')

/** A Markdown table row's cells, split on pipes that a backslash does not escape. */
const cells = (line: string): string[] =>
  line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map(cell => cell.trim().replace(/\\\|/g, '|'))

/**
 * The body rows of every table whose header's first cells are `header` (any case), within `text`.
 */
function tables(text: string, header: string[]): string[][] {
  const lines = text.split('\n')
  return lines.flatMap((line, i) => {
    const head = line.startsWith('|') ? cells(line).map(cell => cell.toLowerCase()) : []
    if (!header.every((name, j) => head[j] === name.toLowerCase())) return []
    const end = lines.findIndex((row, j) => j > i + 1 && !row.startsWith('|'))
    return lines.slice(i + 2, end < 0 ? undefined : end).map(cells)
  })
}

const unquote = (cell: string): string => cell.replace(/^`(.*)`$/, '$1')

/**
 * The contract's inputs and outputs are all declared in action.yml (it may declare more), each input
 * with the contract's default; a required input shows "(required…)". The README's tables are
 * written from action.yml by `npm run docs` (docs.test.ts).
 */
it('action.yml declares every input and output of the contract, with its defaults', () => {
  const text = read('test/fixtures/service/interface.md')
  const problems: string[] = []
  for (const kind of ['input', 'output'] as const) {
    const rows = tables(text, kind === 'input' ? ['Input', 'Default'] : ['Output'])
    expect(rows.length).toBeGreaterThanOrEqual(kind === 'input' ? 14 : 8)
    for (const row of rows) {
      const name = unquote(row[0]!)
      if (!(name in action[`${kind}s`])) problems.push(`${kind} ${name}: not in action.yml`)
      if (kind === 'output' || !(name in action.inputs)) continue
      const [expected, shown] = [String(action.inputs[name]!.default ?? ''), unquote(row[1]!)]
      if (shown !== expected && !(expected === '' && shown.startsWith('(required')))
        problems.push(
          `input ${name}: default ${shown} in the contract, ${JSON.stringify(expected)} in action.yml`
        )
    }
  }
  expect(problems, problems.join('\n')).toEqual([])
})

/**
 * The fixed parts of a quoted message: `<…>` marks a part that varies and `…` text left out.
 * Quotes, brackets and punctuation at the edges of a part are left to the placeholder next to it.
 */
const trimEdges = (part: string): string => part.replace(/^[\s.,;:'"()]+|[\s.,;:'"()]+$/g, '')
const fixedParts = (message: string): string[] =>
  message
    .split(/<[^<>]*>|…/)
    .map(trimEdges)
    .filter(part => part !== '')

/**
 * The first cells of the tables that quote text the action prints: messages, advice, reasons, log
 * lines.
 */
const QUOTING_HEADERS = [
  'Message starts with',
  'Advice starts with',
  'Reason starts with',
  'Log line starts with'
]

describe(`${TROUBLESHOOTING} against src/`, () => {
  const page = read(TROUBLESHOOTING)
  const source = sourceText()

  it('quotes messages that src/ still prints', () => {
    const messages = QUOTING_HEADERS.flatMap(header => tables(page, [header])).map(row => {
      const quoted = /^`([^`]+)`$/.exec(row[0]!)
      expect(quoted, `one code span in the first cell of: ${row.join(' | ')}`).not.toBeNull()
      return quoted![1]!
    })
    expect(messages.length).toBeGreaterThanOrEqual(50)
    // InputError prints every refused input as "Input '<name>' <problem>. <fix>" (src/errors.ts).
    expect(source).toMatch(/`Input '\$\{input\}' \$\{problem\}\. \$\{fix\}`/)
    // String concatenations joined ('...' +\n '...'), as the messages print.
    const printed = source.replace(/(['"`])\s*\+\s*(['"`])/g, '')
    const stale = messages.flatMap(message => {
      const input = /^Input '([a-z-]+)' /.exec(message)
      const problems =
        input !== null && !(input[1]! in action.inputs)
          ? [`names '${input[1]}', not an input in action.yml`]
          : []
      const missing = fixedParts(input === null ? message : message.slice(input[0].length)).filter(
        part => !printed.includes(part)
      )
      if (missing.length > 0)
        problems.push(`not in src/: ${missing.map(part => JSON.stringify(part)).join(', ')}`)
      return problems.map(problem => `${message}\n    ${problem}`)
    })
    expect(
      stale,
      `Messages quoted in ${TROUBLESHOOTING} that src/ no longer prints:\n${stale.join('\n')}`
    ).toEqual([])
  })

  it('quotes every message that src/ builds from a fixed text', () => {
    const documented = page.replace(/\s+/g, ' ')
    // The message of each error and annotation, when it is a literal: InputError's second argument,
    // the others' first.
    const literal = /('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)/.source
    const calls = [
      String.raw`new InputError\(\s*[^,]+,\s*${literal}`,
      String.raw`new (?:ActionError|DeadlineError)\(\s*${literal}`,
      String.raw`(?<![\w.])(?:core\.)?(?:warning|notice)\(\s*${literal}`
    ]
    const undocumented = calls.flatMap(call =>
      [...source.matchAll(new RegExp(call, 'g'))].flatMap(match => {
        // The message's first fixed text of some length: what a reader would search for.
        const part = match[1]!
          .slice(1, -1)
          .split(/\$\{[^}]*\}/)
          .filter(piece => !piece.includes('${'))
          .map(trimEdges)
          .find(piece => piece.length >= 12)
        const start = part?.slice(0, 30).trim()
        return start === undefined || documented.includes(start)
          ? []
          : [`${JSON.stringify(start)} (from ${match[0].slice(0, 60)}…)`]
      })
    )
    expect(
      undocumented,
      `Messages in src/ that ${TROUBLESHOOTING} does not quote:\n${undocumented.join('\n')}`
    ).toEqual([])
  })

  it("names every few words a failed run's headline can give after `failed:`", () => {
    // An error's headline, given as a literal (`headline: '…'`, `headline ??= '…'`, a template, a
    // commands-file constant). The outcome tables' own headlines are pinned by docs.test.ts.
    const found = new Set([
      ...[...source.matchAll(/headline(?::|\s*\?\?=)\s*'([^']+)'/g)].map(match => match[1]!),
      ...[...source.matchAll(/headline: `([^`]+)`/g)].map(match =>
        match[1]!.replace(/\$\{[^}]+\}/g, '<')
      ),
      ...[...source.matchAll(/const \w+ = '(commands-file [^']+)'\n/g)].map(match => match[1]!)
    ])
    expect(found.size, 'headlines were found in src/').toBeGreaterThan(12)
    // A part that varies (`<…>` in the page, `${…}` in the source) is compared up to where it
    // starts.
    const flowing = page.replace(/\s+/g, ' ')
    const missing = [...found].filter(
      words => !['`', 'failed: '].some(before => flowing.includes(before + words.split('<')[0]!))
    )
    expect(missing, `headlines ${TROUBLESHOOTING} does not name`).toEqual([])
  })
})

/** The pages a reader is sent to: the README, the contributor guide, and every page of docs/. */
const DOC_PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...['troubleshooting', 'examples', 'security', 'how-it-works'].map(p => `docs/${p}.md`)
]
const markdownFiles = [
  ...new Set([
    ...DOC_PAGES,
    ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter(name => name.endsWith('.md'))
      .map(name => `docs/${name.replaceAll('\\', '/')}`)
  ])
].sort()

/**
 * The lines of a Markdown file, those of fenced code blocks blanked (so that line numbers stay).
 */
function outsideFences(markdown: string): string[] {
  let fence: string | undefined
  return markdown.split('\n').map(line => {
    const mark = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined && mark !== undefined) fence = mark
    else if (
      fence !== undefined &&
      mark !== undefined &&
      mark[0] === fence[0] &&
      mark.length >= fence.length
    )
      fence = undefined
    else if (fence === undefined) return line
    return ''
  })
}

/**
 * The anchor GitHub gives a heading: lower case, punctuation dropped (but `-` and `_`), each space
 * a `-`.
 */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-')

/** The anchors of a Markdown file's headings, numbered as GitHub numbers repeated ones. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  for (const line of outsideFences(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = slug(heading)
    const times = seen.get(base) ?? 0
    seen.set(base, times + 1)
    found.add(times === 0 ? base : `${base}-${times}`)
  }
  return found
}

/** The relative links and images of a Markdown file (outside code), with their line numbers. */
const relativeLinks = (markdown: string): { line: number; target: string }[] =>
  outsideFences(markdown).flatMap((text, i) =>
    [
      ...text
        .replace(/`[^`]*`/g, '')
        .matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)
    ]
      .map(match => ({ line: i + 1, target: match[1]! }))
      .filter(link => !/^[a-z][a-z0-9+.-]*:/i.test(link.target))
  )

/**
 * Lines that use "cooldown" for anything but the strike (the result `cooldown`) or the check that
 * avoids it (`cooldown-check`, the cooldown check): a run that sent nothing is "skipped", never a
 * cooldown.
 */
const cooldownMisuses = (file: string, text: string): string[] =>
  text
    .split('\n')
    .map((line, i) => ({ line, i }))
    .filter(({ line }) =>
      /cooldown/i.test(
        line
          .replace(/cooldown-check|COOLDOWN_CHECK|cooldown check/gi, '')
          .replace(/`cooldown`|`result: cooldown`/g, '')
      )
    )
    .map(({ line, i }) => `${file}:${i + 1}: ${line.trim()}`)

describe('the documentation pages', () => {
  it('README.md is at most 20 KB, says what the action does, shows the job summary, then the quick start, then contributor commands', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(20 * 1024)
    const text = read('README.md')
    const picture = /!\[([^\]]+)\]\((docs\/images\/[\w.-]+\.png)\)/.exec(text)
    expect(picture, 'a picture of the job summary under docs/images/, with alt text').not.toBeNull()
    const quickStart = text.indexOf('\n## Quick start\n')
    expect(quickStart, 'a "## Quick start" section').toBeGreaterThan(0)
    expect(picture!.index, 'the picture comes before the quick start').toBeLessThan(quickStart)
    expect(text.slice(0, picture!.index), 'what the action does comes first').toMatch(
      /discord\.place[\s\S]*command count[\s\S]*server count/
    )
    expect(picture![1]!.length, 'alt text that says what the picture shows').toBeGreaterThanOrEqual(
      40
    )
    const png = readFileSync(join(ROOT, picture![2]!))
    expect(png.subarray(1, 4).toString('latin1'), `${picture![2]} is a PNG`).toBe('PNG')
    expect(png.length, `${picture![2]} is small`).toBeLessThan(80 * 1024)
    // A user must not think they have to clone the repository: no contributor command before the
    // quick start.
    const firstContributorCommand = Math.min(
      ...['npm ci', 'npm start', 'npm test']
        .map(command => text.indexOf(command))
        .filter(i => i >= 0)
    )
    expect(
      firstContributorCommand,
      'the contributor commands come after the quick start'
    ).toBeGreaterThan(quickStart)
    // CI runs `npm ci` then the README's test command.
    expect(text).toContain('npm ci && npm test')
  })

  it('every relative link resolves to a file, and every #anchor to a heading of that file; the README links every page (so each is there)', () => {
    const fromReadme = new Set(
      relativeLinks(read('README.md')).map(link => link.target.split('#')[0])
    )
    const problems = DOC_PAGES.slice(1)
      .filter(page => !fromReadme.has(page))
      .map(page => `README.md: no link to ${page}`)
    for (const file of markdownFiles) {
      for (const { line, target } of relativeLinks(read(file))) {
        const [path, anchor] = target.split('#', 2) as [string, string | undefined]
        const resolved =
          path === ''
            ? file
            : relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(path))).replaceAll(
                '\\',
                '/'
              )
        const where = `${file}:${line}: ${target}`
        if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved)))
          problems.push(`${where}: no file ${resolved}`)
        else if (anchor !== undefined && !resolved.endsWith('.md'))
          problems.push(`${where}: an anchor into a file that is not Markdown`)
        else if (anchor !== undefined && !anchors(read(resolved)).has(anchor))
          problems.push(`${where}: ${resolved} has no heading #${anchor}`)
      }
    }
    expect(problems, problems.join('\n')).toEqual([])
    // The anchors, made as GitHub makes them.
    expect(
      ['Never a red run: `continue-on-error`', "The summary's headline", 'The 6-hour rule'].map(
        slug
      )
    ).toEqual(['never-a-red-run-continue-on-error', 'the-summarys-headline', 'the-6-hour-rule'])
    expect([...anchors('# A\n\n## A\n\n```md\n## Not a heading\n```\n')]).toEqual(['a', 'a-1'])
  })

  it('say nothing that goes stale, and never call the safe skip "cooldown" (the word means the strike, or names the check)', () => {
    const problems = markdownFiles.flatMap(file => {
      const text = read(file)
      return [
        ...(/\bOWNER\//.test(text)
          ? [`${file}: an OWNER/ placeholder; name discord-place-bot-stats/discord-place-bot-stats`]
          : []),
        ...(/current major/i.test(text) ? [`${file}: "current major" goes stale`] : []),
        ...cooldownMisuses(file, text)
      ]
    })
    expect(problems, problems.join('\n')).toEqual([])
    // What the cooldown rule catches: the skip (nothing sent) called by the strike's word.
    expect(
      cooldownMisuses('x.md', 'Sends nothing during the cooldown (`result: skipped`).')
    ).toHaveLength(1)
    expect(
      cooldownMisuses('x.md', '`cooldown-check: true` avoids `result: cooldown`, a strike.')
    ).toEqual([])
  })
})

/**
 * README.md, CONTRIBUTING.md and docs/ against the contract, the code and each other, so the
 * documentation cannot drift silently:
 * - the README's Inputs and Outputs tables list exactly action.yml's inputs and outputs, with
 *   action.yml's defaults;
 * - every message quoted in docs/troubleshooting.md still occurs in src/, and every message the
 *   source builds from a fixed text is quoted there;
 * - the README stays short (at most 20 KB), opens with what the action does and a picture of
 *   the job summary, and gives the quick start before any contributor command;
 * - every relative link resolves to a file, and every #anchor to a heading of that file;
 * - every YAML example is a complete workflow that keeps working: each job that updates stats
 *   is in the bot's concurrency group, and no count is written into a workflow by hand.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

interface ActionYml {
  inputs: Record<string, { default?: unknown }>
  outputs: Record<string, unknown>
}

const readme = (): Promise<string> => readFile(join(ROOT, 'README.md'), 'utf8')
const TROUBLESHOOTING = 'docs/troubleshooting.md'
const troubleshooting = (): Promise<string> => readFile(join(ROOT, TROUBLESHOOTING), 'utf8')
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

/**
 * The tables of docs/troubleshooting.md whose first column quotes text the action prints: the
 * messages, the advice that ends some of them, the reasons inside others, log lines, and the
 * job summary's headlines.
 */
const QUOTING_HEADERS = ['Message starts with', 'Advice starts with', 'Reason starts with', 'Log line starts with', 'Headline']

/** The texts quoted in the first cell of those tables. */
async function documentedMessages(): Promise<string[]> {
  const text = await troubleshooting()
  return QUOTING_HEADERS.flatMap(header => tables(text, [header])).map(row => {
    const quoted = /^`([^`]+)`$/.exec(row[0]!)
    expect(quoted, `one code span in the first cell of: ${row.join(' | ')}`).not.toBeNull()
    return quoted![1]!
  })
}

describe(`${TROUBLESHOOTING} against src/`, () => {
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
    expect(stale, `Messages quoted in ${TROUBLESHOOTING} that src/ no longer prints:\n${stale.join('\n')}`).toEqual([])
  })

  it('quotes every message that src/ builds from a fixed text', async () => {
    const [text, source] = await Promise.all([troubleshooting(), sourceText()])
    const documented = text.replace(/\s+/g, ' ')
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
    expect(undocumented, `Messages in src/ that ${TROUBLESHOOTING} does not quote:\n${undocumented.join('\n')}`).toEqual([])
  })
})

/** The pages a reader is sent to: the README, the contributor guide, and every page of docs/. */
const DOC_PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'docs/troubleshooting.md',
  'docs/examples.md',
  'docs/security.md',
  'docs/how-it-works.md'
]

/** Every Markdown file the links test reads: the pages above and any other page of docs/. */
function markdownFiles(): string[] {
  const docs = existsSync(join(ROOT, 'docs'))
    ? readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter(name => name.endsWith('.md'))
        .map(name => `docs/${name.split('\\').join('/')}`)
    : []
  return [...new Set([...DOC_PAGES, ...docs])].filter(path => existsSync(join(ROOT, path))).sort()
}

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

/** The lines of a Markdown file, those of fenced code blocks blanked (so that line numbers stay). */
function outsideFences(markdown: string): string[] {
  let fence: string | undefined
  return markdown.split('\n').map(line => {
    const mark = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined && mark !== undefined) fence = mark
    else if (fence !== undefined && mark !== undefined && mark[0] === fence[0] && mark.length >= fence.length) fence = undefined
    else if (fence === undefined) return line
    return ''
  })
}

/** Markdown without its fenced code blocks or code spans: the text whose links are links. */
function prose(markdown: string): string {
  return outsideFences(markdown)
    .map(line => line.replace(/`[^`]*`/g, ''))
    .join('\n')
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped (but `-` and `_`), each space a `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-')
}

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

/** The relative links and images of a Markdown file, with their line numbers. */
function relativeLinks(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = []
  prose(markdown)
    .split('\n')
    .forEach((text, i) => {
      for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = match[1]!
        if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line: i + 1, target })
      }
    })
  return links
}

describe('the documentation pages', () => {
  it('are all there: the README, CONTRIBUTING.md and the four pages of docs/', () => {
    const missing = DOC_PAGES.filter(path => !existsSync(join(ROOT, path)))
    expect(missing, `missing: ${missing.join(', ')}`).toEqual([])
  })

  it('README.md is at most 20 KB: the depth is in docs/', () => {
    const bytes = statSync(join(ROOT, 'README.md')).size
    expect(bytes, `README.md is ${bytes} bytes`).toBeLessThanOrEqual(20 * 1024)
  })

  it('README.md says what the action does, shows the job summary, then the quick start; contributor commands come after it', () => {
    const text = read('README.md')
    const picture = /!\[([^\]]+)\]\((docs\/images\/[\w.-]+\.png)\)/.exec(text)
    expect(picture, 'a picture of the job summary under docs/images/, with alt text').not.toBeNull()
    const quickStart = text.indexOf('\n## Quick start\n')
    expect(quickStart, 'a "## Quick start" section').toBeGreaterThan(0)
    expect(picture!.index, 'the picture comes before the quick start').toBeLessThan(quickStart)
    expect(text.slice(0, picture!.index), 'what the action does comes first').toMatch(
      /discord\.place[\s\S]*command count[\s\S]*server count/
    )
    expect(picture![1]!.length, 'alt text that says what the picture shows').toBeGreaterThanOrEqual(40)
    const png = readFileSync(join(ROOT, picture![2]!))
    expect(png.subarray(1, 4).toString('latin1'), `${picture![2]} is a PNG`).toBe('PNG')
    expect(png.length, `${picture![2]} is small`).toBeLessThan(80 * 1024)
    // A user must not think they have to clone the repository: no contributor command before the quick start.
    const firstContributorCommand = Math.min(
      ...['npm ci', 'npm start', 'npm test'].map(command => text.indexOf(command)).filter(i => i >= 0)
    )
    expect(firstContributorCommand, 'the contributor commands come after the quick start').toBeGreaterThan(quickStart)
    // CI runs `npm ci` then the README's test command.
    expect(text).toContain('npm ci && npm test')
  })

  it('every relative link resolves to a file, and every #anchor to a heading of that file; the README links every page', () => {
    const problems: string[] = []
    const fromReadme = new Set(relativeLinks(read('README.md')).map(link => link.target.split('#')[0]))
    for (const page of DOC_PAGES.slice(1)) if (!fromReadme.has(page)) problems.push(`README.md: no link to ${page}`)
    for (const file of markdownFiles()) {
      for (const { line, target } of relativeLinks(read(file))) {
        const [path, anchor] = target.split('#', 2) as [string, string | undefined]
        const resolved =
          path === ''
            ? file
            : relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(path)))
                .split('\\')
                .join('/')
        const where = `${file}:${line}: ${target}`
        if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
          problems.push(`${where}: no file ${resolved}`)
          continue
        }
        if (anchor === undefined) continue
        if (!resolved.endsWith('.md')) problems.push(`${where}: an anchor into a file that is not Markdown`)
        else if (!anchors(read(resolved)).has(anchor)) problems.push(`${where}: ${resolved} has no heading with the anchor #${anchor}`)
      }
    }
    expect(problems, problems.join('\n')).toEqual([])
  })

  it('GitHub anchors are made as GitHub makes them', () => {
    expect(slug('Never a red run: `continue-on-error`')).toBe('never-a-red-run-continue-on-error')
    expect(slug('Inputs (checked before any request)')).toBe('inputs-checked-before-any-request')
    expect(slug("The summary's headline")).toBe('the-summarys-headline')
    expect(slug('The 6-hour rule')).toBe('the-6-hour-rule')
    expect([...anchors('# A\n\n## A\n\n```md\n## Not a heading\n```\n')]).toEqual(['a', 'a-1'])
  })

  it('say nothing that goes stale or points elsewhere: no OWNER/ placeholder, no "current major"', () => {
    const problems: string[] = []
    for (const file of markdownFiles()) {
      const text = read(file)
      if (/\bOWNER\//.test(text)) problems.push(`${file}: an OWNER/ placeholder; name discord-place-bot-stats/discord-place-bot-stats`)
      if (/current major/i.test(text)) problems.push(`${file}: "current major" goes stale`)
    }
    expect(problems, problems.join('\n')).toEqual([])
  })

  it('never call the safe skip "cooldown": the word means the strike (result `cooldown`), or names the check', () => {
    const problems = markdownFiles().flatMap(file => cooldownMisuses(file, read(file)))
    expect(problems, problems.join('\n')).toEqual([])
    // What it catches: the skip (nothing sent) called by the strike's word.
    expect(cooldownMisuses('x.md', 'Sends nothing during the cooldown (`result: skipped`).')).toHaveLength(1)
    expect(cooldownMisuses('x.md', '`cooldown-check: true` avoids `result: cooldown`, a strike.')).toEqual([])
  })
})

/**
 * Lines that use "cooldown" for anything but the strike (the result `cooldown`) or the check
 * that avoids it (`cooldown-check`, the cooldown check): a run that sent nothing is "skipped" or
 * "not sent", never a cooldown.
 */
function cooldownMisuses(file: string, text: string): string[] {
  const problems: string[] = []
  text.split('\n').forEach((line, i) => {
    const rest = line.replace(/cooldown-check|COOLDOWN_CHECK|cooldown check/gi, '').replace(/`cooldown`|`result: cooldown`/g, '')
    if (/cooldown/i.test(rest)) problems.push(`${file}:${i + 1}: ${line.trim()}`)
  })
  return problems
}

/** A YAML block of a Markdown file, with the line its first line is on. */
interface YamlBlock {
  readonly where: string
  readonly text: string
}

function yamlBlocks(file: string): YamlBlock[] {
  const lines = read(file).split('\n')
  const blocks: YamlBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*ya?ml\b/.exec(lines[i]!)
    if (fence === null) continue
    const end = lines.findIndex((line, j) => j > i && line.trim().startsWith(fence[2]!))
    if (end < 0) break
    blocks.push({ where: `${file}:${i + 2}`, text: lines.slice(i + 1, end).join('\n') })
    i = end
  }
  return blocks
}

interface Step {
  uses?: string
  with?: Record<string, unknown>
}
interface Job {
  uses?: string
  with?: Record<string, unknown>
  secrets?: unknown
  concurrency?: { group?: string; 'cancel-in-progress'?: boolean } | string
  steps?: Step[]
}
interface Workflow {
  on?: unknown
  concurrency?: Job['concurrency']
  jobs?: Record<string, Job>
}

/** The action, and its reusable workflow, under any owner (a copy under another owner must still follow the rules). */
const ACTION = /^[\w.-]+\/discord-place-bot-stats@/
const REUSABLE = /^[\w.-]+\/discord-place-bot-stats\/\.github\/workflows\/stats\.yml@/
/** The group every workflow puts a bot's stats job in (as .github/workflows/stats.yml does). */
const GROUP = /^discord-place-stats-(\d{17,20}|\$\{\{ matrix\.id \}\})$/
/** The majors of GitHub's own actions that the examples name: the ones the project's workflows use. */
const MAJORS: Record<string, string> = { 'actions/checkout': 'v7', 'actions/setup-node': 'v7' }

const isStatsStep = (step: Step): boolean => ACTION.test(step.uses ?? '') && (step.with?.['mode'] ?? 'stats') === 'stats'
const literal = (value: unknown): boolean => value !== undefined && !String(value).includes('${{')

describe('the YAML examples in README.md and docs/', () => {
  const blocks = markdownFiles()
    .filter(file => file === 'README.md' || file.startsWith('docs/'))
    .flatMap(yamlBlocks)

  it('are complete workflows (`on:` and `jobs:`), so that GitHub’s parser checks each one', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5)
    const partial = blocks.filter(block => !(/^on:/m.test(block.text) && /^jobs:/m.test(block.text))).map(block => block.where)
    expect(partial, `YAML blocks that are not a complete workflow:\n${partial.join('\n')}`).toEqual([])
  })

  it("put every job that updates stats in the bot's concurrency group, and a call of the reusable workflow in none", () => {
    const problems: string[] = []
    for (const block of blocks) {
      const workflow = parse(block.text) as Workflow
      for (const [name, job] of Object.entries(workflow.jobs ?? {})) {
        const concurrency = job.concurrency ?? workflow.concurrency
        const group = typeof concurrency === 'string' ? concurrency : concurrency?.group
        const cancel = typeof concurrency === 'string' ? undefined : concurrency?.['cancel-in-progress']
        if (REUSABLE.test(job.uses ?? '')) {
          // stats.yml's job takes the group itself: the calling job in it too would wait for itself.
          if (group !== undefined && group.startsWith('discord-place-stats-'))
            problems.push(`${block.where}: job ${name} calls stats.yml inside its group`)
          continue
        }
        const stats = (job.steps ?? []).filter(isStatsStep)
        if (stats.length === 0) continue
        if (group === undefined || !GROUP.test(group) || cancel !== false) {
          problems.push(
            `${block.where}: job ${name} updates stats outside the group discord-place-stats-<bot-id> (cancel-in-progress: false)`
          )
          continue
        }
        for (const step of stats) {
          const id = step.with?.['bot-id']
          if (literal(id) && group !== `discord-place-stats-${String(id)}`)
            problems.push(`${block.where}: job ${name}: group ${group} for bot ${String(id)}`)
        }
      }
    }
    expect(problems, problems.join('\n')).toEqual([])
  })

  it('take counts from a live source: a schedule reads Discord or a manifest, and no count is written into a workflow', () => {
    const problems: string[] = []
    for (const block of blocks) {
      const workflow = parse(block.text) as Workflow
      const scheduled = typeof workflow.on === 'object' && workflow.on !== null && 'schedule' in workflow.on
      for (const [name, job] of Object.entries(workflow.jobs ?? {})) {
        const calls = REUSABLE.test(job.uses ?? '')
          ? [{ with: job.with, live: job.secrets === 'inherit' || /DISCORD_BOT_TOKEN/.test(JSON.stringify(job.secrets ?? '')) }]
          : []
        const steps = (job.steps ?? [])
          .filter(isStatsStep)
          .map(step => ({ with: step.with, live: step.with?.['discord-token'] !== undefined }))
        for (const use of [...calls, ...steps]) {
          for (const input of ['command-count', 'server-count'])
            if (literal(use.with?.[input])) problems.push(`${block.where}: job ${name} writes ${input} into the workflow`)
          if (scheduled && !use.live && use.with?.['commands-file'] === undefined)
            problems.push(`${block.where}: job ${name} runs on a schedule without discord-token or commands-file`)
        }
      }
    }
    expect(problems, problems.join('\n')).toEqual([])
  })

  it("name GitHub's own actions at the majors the project's workflows use", () => {
    const stale = blocks.flatMap(block =>
      [...block.text.matchAll(/\b(actions\/[\w.-]+)@([\w.-]+)/g)]
        .filter(([, name, ref]) => MAJORS[name!] !== ref)
        .map(([reference]) => `${block.where}: ${reference}`)
    )
    expect(stale, stale.join('\n')).toEqual([])
  })
})

describe('docs/troubleshooting.md against the headlines of src/', () => {
  it("lists every few words a failed run's headline can say", async () => {
    const [text, source] = await Promise.all([troubleshooting(), sourceText()])
    // A headline is a string given as `headline`, assigned to one, or returned by a *Headline function.
    const found = new Set<string>()
    {
      for (const match of source.matchAll(/headline(?::|\s*\?\?=)[^,\n}`]*?'([^'$]+)'/g)) found.add(match[1]!)
      for (const match of source.matchAll(/headline: `([^`]+)`/g)) found.add(match[1]!.replace(/\$\{[^}]+\}/g, '<'))
      for (const body of source.matchAll(/function \w+Headline\([^)]*\)[^{]*\{([\s\S]*?)\n\}/g)) {
        for (const match of body[1]!.matchAll(/return '([^']+)'/g)) found.add(match[1]!)
      }
      for (const match of source.matchAll(/const \w+ = '([^']+)'\n/g)) if (/^commands-file /.test(match[1]!)) found.add(match[1]!)
    }
    expect(found.size, 'headlines were found in src/').toBeGreaterThan(15)
    const row = text.split('\n').find(line => line.startsWith('| `failed: <why>`')) ?? ''
    // A part that varies (`<…>` in the page, `${…}` in the source) is compared up to where it starts.
    const missing = [...found].filter(words => !row.includes(`\`${words.split('<')[0]!}`))
    expect(missing, `headlines the failed row of ${TROUBLESHOOTING} does not list`).toEqual([])
  })
})

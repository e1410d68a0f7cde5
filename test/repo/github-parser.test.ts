/**
 * GitHub's own parser (`@actions/workflow-parser`) judges what the project ships and shows:
 * action.yml as a runner loads it, every workflow in .github/workflows, and every complete
 * workflow in README.md and docs/. Zero errors is the rule; each error names the file, line
 * and column. The runner's view of action.yml also drives the end-to-end harness, tested here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { JOB_TOKEN, prepareRun, ROOT } from '../support/action.js'
import { inputEnvironment, parseActionFile, workflowErrors } from '../support/runner.js'

const source = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
const WORKFLOWS = readdirSync(join(ROOT, '.github/workflows'))
  .filter(name => /\.ya?ml$/.test(name))
  .sort()
  .map(name => `.github/workflows/${name}`)
const DOCS = [
  'README.md',
  ...(existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }) : [])
    .filter(name => name.endsWith('.md'))
    .map(name => `docs/${name}`)
].sort()

/** A complete workflow shown in Markdown: a yaml block with `on:` and `jobs:` at its top level. */
interface Example {
  readonly file: string
  /** The line of the Markdown file the block's first line is on (1-based). */
  readonly line: number
  readonly content: string
}

/**
 * The complete workflows in a Markdown text. Each block is padded with the lines before it, so
 * that the parser's line numbers are the Markdown file's own.
 */
export function workflowExamples(file: string, markdown: string): Example[] {
  const lines = markdown.split('\n')
  const examples: Example[] = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*ya?ml\b/.exec(lines[i]!)
    if (fence === null) continue
    const end = lines.findIndex((line, j) => j > i && line.trim().startsWith(fence[2]!))
    if (end < 0) break
    const body = lines.slice(i + 1, end).map(line => line.slice(Math.min(fence[1]!.length, line.search(/\S|$/))))
    const text = body.join('\n')
    if (/^on:/m.test(text) && /^jobs:/m.test(text)) examples.push({ file, line: i + 2, content: '\n'.repeat(i + 1) + text + '\n' })
    i = end
  }
  return examples
}

const EXAMPLES = DOCS.flatMap(file => workflowExamples(file, source(file)))

describe("GitHub's parser: action.yml loads as a runner loads it", () => {
  it('action.yml has no error', () => {
    const parsed = parseActionFile('action.yml', source('action.yml'))
    expect(parsed.errors, parsed.errors.join('\n')).toEqual([])
    expect(parsed.template?.runs).toMatchObject({ using: 'node24', main: 'dist/index.js' })
  })

  it('refuses an expression in a description, with its line and column (the metadata that once kept the action from starting)', () => {
    const broken = source('action.yml').replace(
      /^( {2}api-key:\n {4}description: >-\n)/m,
      '$1      Pass it from a repository secret, for example `${{ secrets.DISCORD_PLACE_API_KEY }}`.\n'
    )
    expect(broken).not.toBe(source('action.yml'))
    const parsed = parseActionFile('action.yml', broken)
    expect(parsed.template).toBeUndefined()
    expect(parsed.errors.join('\n')).toMatch(/action\.yml \(Line: \d+, Col: \d+\): Unrecognized named-value: 'secrets'/)
  })

  it('refuses a context a default may not use, and an unknown key', () => {
    const secretDefault = source('action.yml').replace('default: ${{ github.token }}', 'default: ${{ secrets.GITHUB_TOKEN }}')
    expect(parseActionFile('action.yml', secretDefault).errors.join('\n')).toMatch(/Unrecognized named-value: 'secrets'/)
    const unknownKey = source('action.yml').replace(/^runs:\n/m, 'runs:\n  unknown-key: x\n')
    expect(parseActionFile('action.yml', unknownKey).errors.join('\n')).toMatch(/\(Line: \d+, Col: \d+\).*unknown-key/)
  })
})

describe("GitHub's parser: the workflows the project ships", () => {
  it('finds them', () => {
    expect(WORKFLOWS).toEqual(
      expect.arrayContaining(['.github/workflows/ci.yml', '.github/workflows/stats.yml', '.github/workflows/release.yml'])
    )
  })

  it.each(WORKFLOWS)('%s has no error', async path => {
    const errors = await workflowErrors(path, source(path))
    expect(errors, errors.join('\n')).toEqual([])
  })

  it('reports an unknown context and an unknown key, with line and column (the parser is live)', async () => {
    const job = (step: string): string => `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n${step}`
    const context = await workflowErrors('broken.yml', job('      - run: echo ${{ nope.value }}\n'))
    expect(context.join('\n')).toMatch(/broken\.yml \(Line: 6, Col: \d+\): Unrecognized named-value: 'nope'/)
    const key = await workflowErrors('broken.yml', job('      - run: echo hi\n        runz: x\n'))
    expect(key.join('\n')).toMatch(/broken\.yml \(Line: 7, Col: \d+\): .*runz/)
  })
})

describe("GitHub's parser: every complete workflow in README.md and docs/", () => {
  it('finds the examples (a README quick start, and the examples page)', () => {
    expect(EXAMPLES.filter(example => example.file === 'README.md').length).toBeGreaterThanOrEqual(1)
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(5)
  })

  it.each(EXAMPLES.map(example => [`${example.file}:${example.line}`, example] as const))('%s has no error', async (_, example) => {
    const errors = await workflowErrors(example.file, example.content)
    expect(errors, errors.join('\n')).toEqual([])
  })

  it("reports an example's error at the Markdown file's own line", async () => {
    const markdown = [
      '# Title',
      '',
      '```yaml',
      'on: push',
      'jobs:',
      '  a:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - run: echo ${{ nope }}',
      '```',
      ''
    ].join('\n')
    const [example] = workflowExamples('docs/x.md', markdown)
    expect(example).toMatchObject({ file: 'docs/x.md', line: 4 })
    expect((await workflowErrors(example!.file, example!.content)).join('\n')).toMatch(
      /docs\/x\.md \(Line: 9, Col: \d+\): Unrecognized named-value: 'nope'/
    )
  })
})

describe('the end-to-end harness passes what the runner would pass', () => {
  const action = parseActionFile('action.yml', source('action.yml')).template!

  it('sets every declared input: the value given, else its default, else empty', () => {
    const env = inputEnvironment(action, { 'bot-id': '123456789012345678' }, { github: { token: 'ghs_x' } })
    const declared = (parse(source('action.yml')) as { inputs: Record<string, { default?: unknown }> }).inputs
    expect(Object.keys(env).sort()).toEqual(
      Object.keys(declared)
        .map(name => `INPUT_${name.toUpperCase()}`)
        .sort()
    )
    expect(env['INPUT_BOT-ID']).toBe('123456789012345678')
    expect(env['INPUT_MODE']).toBe('stats')
    expect(env['INPUT_COOLDOWN-CHECK']).toBe('true')
    expect(env['INPUT_COMMAND-COUNT']).toBe('')
  })

  it('evaluates the `${{ github.token }}` default to the job token the test gives', async () => {
    const env = inputEnvironment(action, {}, { github: { token: 'ghs_fromTheJob' } })
    expect(env['INPUT_GITHUB-TOKEN']).toBe('ghs_fromTheJob')
    const run = await prepareRun({ inputs: { 'bot-id': '123456789012345678' } })
    try {
      expect(run.env['INPUT_GITHUB-TOKEN']).toBe(JOB_TOKEN)
    } finally {
      await run.cleanup()
    }
    const given = await prepareRun({ inputs: {}, jobToken: 'ghs_other' })
    await given.cleanup()
    expect(given.env['INPUT_GITHUB-TOKEN']).toBe('ghs_other')
  })

  it('refuses an input action.yml does not declare, naming it', async () => {
    expect(() => inputEnvironment(action, { 'bot-idd': '1' }, { github: { token: '' } })).toThrow(
      /inputs not declared in action.yml: bot-idd/
    )
    await expect(prepareRun({ inputs: { api_key: 'x' } })).rejects.toThrow(/inputs not declared in action.yml: api_key/)
  })
})

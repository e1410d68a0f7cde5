/**
 * GitHub's own parser (`@actions/workflow-parser`) judges what the project ships and shows:
 * action.yml as a runner loads it, every workflow in .github/workflows, and every YAML example
 * in README.md and docs/, which must be a complete workflow that keeps working (each job that
 * updates stats in the bot's concurrency group, no count written into a workflow by hand).
 * Zero errors is the rule; each error names the file, line and column. The runner's view of
 * action.yml also drives the end-to-end harness, tested here.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { JOB_TOKEN, prepareRun, ROOT } from '../support/action.js'
import { parseActionFile, workflowErrors } from '../support/runner.js'
import type { FileProvider } from '@actions/workflow-parser/workflows/file-provider'

const source = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
const listed = (dir: string, pattern: RegExp): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter(name => pattern.test(name))
    .map(name => `${dir}/${name.replaceAll('\\', '/')}`)
    .sort()
const WORKFLOWS = listed('.github/workflows', /\.ya?ml$/)

/**
 * The YAML blocks of a Markdown file: where each starts, its text, and the text padded so that the
 * parser's line numbers are the file's own.
 */
function yamlExamples(
  file: string,
  markdown: string
): { where: string; text: string; padded: string }[] {
  const lines = markdown.split('\n')
  const examples: ReturnType<typeof yamlExamples> = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*ya?ml\b/.exec(lines[i]!)
    if (fence === null) continue
    const end = lines.findIndex((line, j) => j > i && line.trim().startsWith(fence[2]!))
    if (end < 0) break
    const text = lines
      .slice(i + 1, end)
      .map(line => line.slice(Math.min(fence[1]!.length, line.search(/\S|$/))))
      .join('\n')
    examples.push({ where: `${file}:${i + 2}`, text, padded: '\n'.repeat(i + 1) + text + '\n' })
    i = end
  }
  return examples
}

/**
 * The call shown in stats.yml's header comment, as a workflow: its lines without the `# `, under
 * an `on:` of its own.
 */
function commentedCall(path: string): { where: string; text: string; padded: string } {
  const lines = source(path).split('\n')
  const start = lines.indexOf('#   jobs:')
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('#   '))
  const text = `on: push\n${lines
    .slice(start, end)
    .map(line => line.slice(4))
    .join('\n')}\n`
  return { where: `${path}:${start + 1}`, text, padded: text }
}

const EXAMPLES = [
  ...['README.md', ...listed('docs', /\.md$/)].flatMap(file => yamlExamples(file, source(file))),
  commentedCall('.github/workflows/stats.yml')
]

/**
 * GitHub's fetch of a called workflow, answered from this checkout: the examples call only
 * stats.yml (under any owner and tag); any other call is not found, which the parser reports.
 */
const CALLED: FileProvider = {
  getFileContent: async ref => {
    if (!('owner' in ref) || ref.path !== '.github/workflows/stats.yml')
      throw new Error(`no such workflow here: ${ref.path}`)
    return { name: ref.path, content: source(ref.path) }
  }
}

describe("GitHub's parser: action.yml loads as a runner loads it", () => {
  it('action.yml has no error, runs dist/index.js on node24, and describes every input', () => {
    const parsed = parseActionFile('action.yml', source('action.yml'))
    expect(parsed.errors, parsed.errors.join('\n')).toEqual([])
    expect(parsed.template?.runs).toMatchObject({ using: 'node24', main: 'dist/index.js' })
    expect(
      parsed.template!.inputs!.filter(input => !input.description).map(input => input.id)
    ).toEqual([])
  })

  it.each([
    {
      // The metadata that once kept the action from starting.
      broken: 'an expression in a description',
      from: /^( {2}api-key:\n {4}description: >-\n)/m,
      to: '$1      Pass it from a repository secret, for example `${{ secrets.DISCORD_PLACE_API_KEY }}`.\n',
      error: /action\.yml \(Line: \d+, Col: \d+\): Unrecognized named-value: 'secrets'/
    },
    {
      broken: 'a context a default may not use',
      from: '${{ github.token }}',
      to: '${{ secrets.GITHUB_TOKEN }}',
      error: /Unrecognized named-value: 'secrets'/
    },
    {
      broken: 'an unknown key',
      from: /^runs:\n/m,
      to: 'runs:\n  unknown-key: x\n',
      error: /\(Line: \d+, Col: \d+\).*unknown-key/
    },
    {
      broken: 'an icon GitHub does not offer',
      from: /icon: .*/,
      to: 'icon: key',
      error: /\(Line: \d+, Col: \d+\): Unexpected value 'key'/
    }
  ])('refuses $broken, with its line and column', ({ from, to, error }) => {
    const broken = source('action.yml').replace(from, to)
    expect(broken).not.toBe(source('action.yml'))
    const parsed = parseActionFile('action.yml', broken)
    expect(parsed.template).toBeUndefined()
    expect(parsed.errors.join('\n')).toMatch(error)
  })
})

describe("GitHub's parser: the workflows the project ships, and the examples in README.md and docs/", () => {
  it('finds them: the three workflows, a README quick start and the examples page, each example a complete workflow', () => {
    expect(WORKFLOWS).toEqual(
      expect.arrayContaining(
        ['ci.yml', 'stats.yml', 'release.yml'].map(name => `.github/workflows/${name}`)
      )
    )
    expect(
      EXAMPLES.filter(example => example.where.startsWith('README.md:')).length
    ).toBeGreaterThanOrEqual(1)
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(5)
    // Complete (`on:` and `jobs:`), so that the parser checks each one.
    expect(
      EXAMPLES.filter(example => !(/^on:/m.test(example.text) && /^jobs:/m.test(example.text))).map(
        e => e.where
      )
    ).toEqual([])
  })

  it.each([
    ...WORKFLOWS.map(path => [path, path, source(path)] as const),
    ...EXAMPLES.map(
      example => [example.where, example.where.split(':')[0]!, example.padded] as const
    )
  ])('%s has no error', async (_, file, content) => {
    const errors = await workflowErrors(file, content, CALLED)
    expect(errors, errors.join('\n')).toEqual([])
  })

  it('checks each call of stats.yml against it: the calls pass its secrets by name, never inherit', async () => {
    const calls = EXAMPLES.filter(example => REUSABLE_CALL.test(example.text))
    expect(calls.map(call => call.where.split(':')[0])).toEqual(
      expect.arrayContaining(['README.md', '.github/workflows/stats.yml'])
    )
    // GitHub checks nothing of a call with `secrets: inherit`, and across owners it passes none.
    expect(calls.filter(call => /secrets:\s*inherit/.test(call.text)).map(c => c.where)).toEqual([])
    for (const call of calls) expect(call.text).toContain('DISCORD_PLACE_API_KEY: ${{ secrets.')
    const [call] = calls
    const misnamed = call!.text.replace('DISCORD_PLACE_API_KEY:', 'DISCORD_PLACE_KEY:')
    expect(await workflowErrors('misnamed.yml', misnamed, CALLED)).toEqual([
      'misnamed.yml (Line: 14, Col: 26): Invalid secret, DISCORD_PLACE_KEY is not defined in the referenced workflow.'
    ])
    const noBot = call!.text.replace(/^ *bot-id: .*\n/m, '')
    expect(await workflowErrors('no-bot.yml', noBot, CALLED)).toEqual([
      expect.stringMatching(/Input bot-id is required, but not provided while calling\.$/)
    ])
  })

  it("reports an unknown context and an unknown key at the file's own line and column (the parser is live)", async () => {
    const job = (step: string): string =>
      `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n${step}`
    const context = await workflowErrors('broken.yml', job('      - run: echo ${{ nope.value }}\n'))
    expect(context.join('\n')).toMatch(
      /broken\.yml \(Line: 6, Col: \d+\): Unrecognized named-value: 'nope'/
    )
    const key = await workflowErrors('broken.yml', job('      - run: echo hi\n        runz: x\n'))
    expect(key.join('\n')).toMatch(/broken\.yml \(Line: 7, Col: \d+\): .*runz/)
    // An example's error is reported at the Markdown file's own line.
    const [example] = yamlExamples(
      'docs/x.md',
      `# Title\n\n\`\`\`yaml\n${job('      - run: echo ${{ nope }}\n')}\`\`\`\n`
    )
    expect(example).toMatchObject({ where: 'docs/x.md:4' })
    expect((await workflowErrors('docs/x.md', example!.padded)).join('\n')).toMatch(
      /docs\/x\.md \(Line: 9, Col: \d+\): .*'nope'/
    )
  })
})

interface Uses {
  uses?: string
  with?: Record<string, unknown>
}
interface Job extends Uses {
  secrets?: unknown
  concurrency?: { group?: string; 'cancel-in-progress'?: boolean } | string
  steps?: Uses[]
}
interface Workflow {
  on?: unknown
  concurrency?: Job['concurrency']
  jobs?: Record<string, Job>
}

/**
 * The action, and its reusable workflow, under any owner (a copy under another owner must still
 * follow the rules).
 */
const ACTION = /^[\w.-]+\/discord-place-bot-stats@/
const REUSABLE = /^[\w.-]+\/discord-place-bot-stats\/\.github\/workflows\/stats\.yml@/
const REUSABLE_CALL = /uses: [\w.-]+\/discord-place-bot-stats\/\.github\/workflows\/stats\.yml@/
/** The group every workflow puts a bot's stats job in (as .github/workflows/stats.yml does). */
const GROUP = /^discord-place-stats-(\d{17,20}|\$\{\{ matrix\.id \}\})$/
const isStatsStep = (step: Uses): boolean =>
  ACTION.test(step.uses ?? '') && (step.with?.['mode'] ?? 'stats') === 'stats'
const literal = (value: unknown): boolean => value !== undefined && !String(value).includes('${{')

/** Each job of each example, with its workflow. */
const jobs = EXAMPLES.flatMap(example => {
  const workflow = parse(example.text) as Workflow
  return Object.entries(workflow.jobs ?? {}).map(([name, job]) => ({
    at: `${example.where}: job ${name}`,
    job,
    workflow
  }))
})

describe('the YAML examples in README.md and docs/', () => {
  it("put every job that updates stats in the bot's concurrency group, and a call of the reusable workflow in none", () => {
    const problems = jobs.flatMap(({ at, job, workflow }) => {
      const concurrency = job.concurrency ?? workflow.concurrency
      const group = typeof concurrency === 'string' ? concurrency : concurrency?.group
      // stats.yml's job takes the group itself: the calling job in it too would wait for itself.
      if (REUSABLE.test(job.uses ?? ''))
        return group?.startsWith('discord-place-stats-')
          ? [`${at} calls stats.yml inside its group`]
          : []
      const stats = (job.steps ?? []).filter(isStatsStep)
      if (stats.length === 0) return []
      if (
        group === undefined ||
        !GROUP.test(group) ||
        typeof concurrency === 'string' ||
        concurrency?.['cancel-in-progress'] !== false
      )
        return [
          `${at} updates stats outside the group discord-place-stats-<bot-id> (cancel-in-progress: false)`
        ]
      return stats
        .map(step => step.with?.['bot-id'])
        .filter(id => literal(id) && group !== `discord-place-stats-${String(id)}`)
        .map(id => `${at}: group ${group} for bot ${String(id)}`)
    })
    expect(problems, problems.join('\n')).toEqual([])
  })

  it('take counts from a live source: a schedule reads Discord or a manifest, and no count is written into a workflow', () => {
    const problems = jobs.flatMap(({ at, job, workflow }) => {
      const scheduled =
        typeof workflow.on === 'object' && workflow.on !== null && 'schedule' in workflow.on
      const calls = REUSABLE.test(job.uses ?? '')
        ? [
            {
              with: job.with,
              live:
                job.secrets === 'inherit' ||
                /DISCORD_BOT_TOKEN/.test(JSON.stringify(job.secrets ?? ''))
            }
          ]
        : []
      const steps = (job.steps ?? [])
        .filter(isStatsStep)
        .map(step => ({ with: step.with, live: step.with?.['discord-token'] !== undefined }))
      return [...calls, ...steps].flatMap(use => [
        ...['command-count', 'server-count']
          .filter(input => literal(use.with?.[input]))
          .map(input => `${at} writes ${input} into the workflow`),
        ...(scheduled && !use.live && use.with?.['commands-file'] === undefined
          ? [`${at} runs on a schedule without discord-token or commands-file`]
          : [])
      ])
    })
    expect(problems, problems.join('\n')).toEqual([])
  })

  it("name GitHub's own actions at the majors the project's workflows use", () => {
    const MAJORS: Record<string, string> = { 'actions/checkout': 'v7', 'actions/setup-node': 'v7' }
    const stale = EXAMPLES.flatMap(example =>
      [...example.text.matchAll(/\b(actions\/[\w.-]+)@([\w.-]+)/g)]
        .filter(([, name, ref]) => MAJORS[name!] !== ref)
        .map(([reference]) => `${example.where}: ${reference}`)
    )
    expect(stale, stale.join('\n')).toEqual([])
  })
})

describe('the end-to-end harness passes what the runner would pass', () => {
  it('sets every declared input: the value given, else its default (`${{ github.token }}` evaluated), else empty', async () => {
    const declared = Object.keys((parse(source('action.yml')) as { inputs: object }).inputs).map(
      name => `INPUT_${name.toUpperCase()}`
    )
    const run = await prepareRun({ inputs: { 'bot-id': '123456789012345678' } })
    const other = await prepareRun({ inputs: {}, jobToken: 'ghs_other' })
    await Promise.all([run.cleanup(), other.cleanup()])
    const inputs = Object.keys(run.env).filter(name => name.startsWith('INPUT_'))
    expect(inputs.sort()).toEqual(declared.sort())
    expect(run.env).toMatchObject({
      'INPUT_BOT-ID': '123456789012345678',
      INPUT_MODE: 'stats',
      'INPUT_COOLDOWN-CHECK': 'true',
      'INPUT_COMMAND-COUNT': '',
      'INPUT_GITHUB-TOKEN': JOB_TOKEN
    })
    expect(other.env['INPUT_GITHUB-TOKEN']).toBe('ghs_other')
  })

  it('refuses an input action.yml does not declare, naming it', async () => {
    await expect(prepareRun({ inputs: { api_key: 'x' } })).rejects.toThrow(
      /inputs not declared in action.yml: api_key/
    )
  })
})

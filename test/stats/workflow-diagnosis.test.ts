/**
 * A strike explained from its workflow (the issue's "A strike explained from the workflow that
 * caused it"): after a strike, and in a dry run as a set-up check, the workflow that ran the step
 * is read (from the workspace, else through GitHub's API) and what it shows is named: a stats
 * job without a concurrency group, `cooldown-check: false` on a schedule whose runs can come 6
 * hours apart or less, or neither: one cause, the one the evidence shows. A file that cannot be
 * read or parsed changes nothing; a stop or the deadline leaves it unchecked, and says so.
 */
import { describe, expect, it } from 'vitest'
import { Requests } from '../../src/http/client.js'
import type { StatsSettings } from '../../src/settings.js'
import { diagnoseWorkflow, type Evidence, MAX_WORKFLOW_BYTES } from '../../src/stats/diagnosis.js'
import { describeFindings, inspectWorkflow } from '../../src/stats/workflow.js'
import { GitHubFake } from '../support/fakes.js'
import { recordFault } from '../support/emulator.js'
import { BOT, emulatedBot, HOUR, settingsFor, statsInputs, statsRun, tempWorkspace, TestClock } from '../support/inprocess.js'
import { afterTest } from '../support/teardown.js'

const REPOSITORY = 'example/bot'
const SHA = 'b'.repeat(40)
const TOKEN = 'ghs_diagnosisToken0123456789'

const WITHOUT_GROUP = `
name: stats
on:
  push:
    branches: [main]
  schedule:
    - cron: '0 */8 * * *'
jobs:
  stats:
    runs-on: ubuntu-latest
    steps:
      - uses: discord-place-bot-stats/discord-place-bot-stats@v1
        with:
          bot-id: '${BOT}'
          api-key: \${{ secrets.DISCORD_PLACE_API_KEY }}
`
const WITH_GROUP = WITHOUT_GROUP.replace(
  '    runs-on: ubuntu-latest',
  `    runs-on: ubuntu-latest\n    concurrency:\n      group: discord-place-stats-${BOT}\n      cancel-in-progress: false`
)
const EVERY_TWO_HOURS = WITH_GROUP.replace("'0 */8 * * *'", "'0 */2 * * *'")

describe('inspectWorkflow', () => {
  it('a job without a concurrency group: names the exact group to add', () => {
    const findings = inspectWorkflow(WITHOUT_GROUP, 'stats', true)
    expect(findings).toEqual({ noGroup: true, tooOften: undefined })
    expect(describeFindings(findings!, '.github/workflows/stats.yml, job stats', BOT)).toMatch(
      new RegExp(`its job has no concurrency group.*concurrency: \\{ group: discord-place-stats-${BOT}, cancel-in-progress: false \\}`)
    )
  })

  it('a group at the workflow level counts too', () => {
    const text = `concurrency: discord-place-stats-${BOT}\n${WITHOUT_GROUP}`
    expect(inspectWorkflow(text, 'stats', true)).toEqual({ noGroup: false, tooOften: undefined })
  })

  it("a duplicate key elsewhere in the file does not stop the reading, as it does not stop GitHub's parser", () => {
    const text = WITHOUT_GROUP.replace('name: stats', 'name: stats\nenv:\n  A: 1\n  A: 2')
    expect(inspectWorkflow(text, 'stats', true)).toEqual({ noGroup: true, tooOften: undefined })
  })

  it("cooldown-check: false on '0 */2 * * *': names the cron and the gap", () => {
    const findings = inspectWorkflow(EVERY_TWO_HOURS, 'stats', false)
    expect(findings).toEqual({ noGroup: false, tooOften: { cron: '0 */2 * * *', gapMinutes: 120 } })
    expect(describeFindings(findings!, 'w.yml, job stats', BOT)).toMatch(
      /it runs on the schedule "0 \*\/2 \* \* \*", whose runs can come 2 h apart .* with cooldown-check: false/
    )
  })

  it('the same schedule with cooldown-check: true is no finding', () => {
    const findings = inspectWorkflow(EVERY_TWO_HOURS, 'stats', true)
    expect(findings).toEqual({ noGroup: false, tooOften: undefined })
    expect(describeFindings(findings!, 'w.yml', BOT)).toBeUndefined()
  })

  it.each([
    ['not YAML', 'jobs: [unclosed'],
    ['not a mapping', '- a list'],
    ['another job', WITHOUT_GROUP.replace('  stats:', '  deploy:')]
  ])('%s: nothing to say', (_, text) => {
    expect(inspectWorkflow(text, 'stats', true)).toBeUndefined()
  })
})

describe('a strike explained from its workflow, in process', () => {
  /** The environment of a step run by job `stats` of .github/workflows/stats.yml, with this workspace. */
  const workflowRun = (workspace: string): Record<string, string> => ({
    GITHUB_WORKSPACE: workspace,
    GITHUB_WORKFLOW_REF: `${REPOSITORY}/.github/workflows/stats.yml@refs/heads/main`,
    GITHUB_JOB: 'stats'
  })

  /**
   * A strike on a bot updated an hour ago: sent without the check (`unchecked`), or allowed by a
   * record read that showed an older update (`allowed`: another update came first).
   */
  async function strikeRun(
    workspaceFiles: Record<string, string>,
    more: Record<string, string> = {},
    env: Record<string, string> = {},
    how: 'unchecked' | 'allowed' = 'allowed'
  ): Promise<string> {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: HOUR })
    if (how === 'allowed') emulator.inject('record', recordFault(BOT, new Date(clock.now() - 7 * HOUR)))
    const workspace = await tempWorkspace(workspaceFiles)
    const check = { 'cooldown-check': how === 'allowed' ? 'true' : 'false' }
    const { outcome } = await statsRun(statsInputs(emulator, { ...check, ...more }), {
      clock,
      env: { ...workflowRun(workspace), ...env }
    })
    expect(outcome.result).toBe('cooldown')
    return outcome.error!.message
  }

  it('a workflow without a group, in the workspace: the strike names the group to add', async () => {
    const message = await strikeRun({ '.github/workflows/stats.yml': WITHOUT_GROUP })
    expect(message).toMatch(
      /The workflow that ran this step \(\.github\/workflows\/stats\.yml, job stats\) shows why: its job has no concurrency group/
    )
    expect(message).toContain(`discord-place-stats-${BOT}`)
  })

  it("cooldown-check: false on '0 */2 * * *': the strike names the cron and the gap, and only that cause", async () => {
    const schedule = /it runs on the schedule "0 \*\/2 \* \* \*", whose runs can come 2 h apart/
    expect(await strikeRun({ '.github/workflows/stats.yml': EVERY_TWO_HOURS }, {}, {}, 'unchecked')).toMatch(schedule)
    const withoutGroup = await strikeRun(
      { '.github/workflows/stats.yml': EVERY_TWO_HOURS.replace(/ {4}concurrency:\n.*\n.*\n/, '') },
      {},
      {},
      'unchecked'
    )
    expect(withoutGroup).toMatch(schedule)
    expect(withoutGroup).not.toMatch(/no concurrency group|another workflow/)
  })

  it('sent unchecked, with nothing in the file to explain it: the file adds nothing', async () => {
    const message = await strikeRun({ '.github/workflows/stats.yml': WITHOUT_GROUP }, {}, {}, 'unchecked')
    expect(message).not.toMatch(/The workflow that ran this step|another workflow/)
  })

  it('a workflow with a group: the other update came from elsewhere', async () => {
    const message = await strikeRun({ '.github/workflows/stats.yml': WITH_GROUP })
    expect(message).toMatch(/has a concurrency group, so the other update came from another workflow, a manual run, or the bot itself/)
  })

  it('the first day (the re-read answers "not verified"): the workflow is not read, and no other cause is named', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, {
      seed: { verified: false, createdAt: new Date(clock.now() - HOUR), commandsUpdatedAt: undefined }
    })
    const workspace = await tempWorkspace({ '.github/workflows/stats.yml': WITHOUT_GROUP })
    const { outcome } = await statsRun(statsInputs(emulator, { 'cooldown-check': 'false' }), { clock, env: workflowRun(workspace) })
    expect(outcome).toMatchObject({ result: 'cooldown', strikeCause: 'unverified' })
    expect(outcome.error?.message).not.toMatch(/The workflow that ran this step|another workflow|concurrency group \(/)
  })

  it('an unreadable workflow changes nothing: the strike is reported as before', async () => {
    const plain = await strikeRun({})
    const broken = await strikeRun({ '.github/workflows/stats.yml': 'jobs: [unclosed' })
    const tooLarge = await strikeRun({ '.github/workflows/stats.yml': WITHOUT_GROUP + '#'.repeat(MAX_WORKFLOW_BYTES) })
    for (const message of [plain, broken, tooLarge]) {
      expect(message).toMatch(/^Stats update refused as too early/)
      expect(message).not.toMatch(/The workflow that ran this step/)
    }
  })

  it('without a checkout, the file is read through GitHub’s API at the workflow’s commit, with github-token', async () => {
    const github = await GitHubFake.start({
      repository: REPOSITORY,
      sha: SHA,
      token: TOKEN,
      files: { '.github/workflows/stats.yml': WITHOUT_GROUP }
    })
    afterTest(() => github.close())
    const message = await strikeRun(
      {},
      { 'github-token': TOKEN },
      { GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_SHA: SHA, GITHUB_API_URL: github.url }
    )
    expect(github.requests).toHaveLength(1)
    expect(message).toMatch(/its job has no concurrency group/)
  })

  it('in the reusable workflow, whose job is always in the group: the other update came from outside it', async () => {
    const message = await strikeRun({ '.github/workflows/stats.yml': WITHOUT_GROUP }, {}, { DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: 'true' })
    expect(message).toMatch(/The step ran in the reusable workflow, whose job is always in the concurrency group/)
    expect(message).not.toMatch(/no concurrency group/)
  })

  it('a dry run names the same finding as a warning: the set-up check', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const workspace = await tempWorkspace({ '.github/workflows/stats.yml': WITHOUT_GROUP })
    const { outcome } = await statsRun(statsInputs(emulator, { 'dry-run': 'true' }), { clock, env: workflowRun(workspace) })
    expect(outcome.result).toBe('dry-run')
    // Nothing happened in a dry run: the finding is what could cost a strike, not why one came.
    expect(outcome.warnings).toEqual([expect.stringMatching(/\) could cost a strike later: its job has no concurrency group/)])
    expect(outcome.warnings[0]).not.toMatch(/shows why/)
  })
})

describe('inspectWorkflow: the concurrency group and the schedule', () => {
  const withSchedule = (...crons: string[]): string =>
    WITH_GROUP.replace("    - cron: '0 */8 * * *'", crons.map(cron => `    - cron: '${cron}'`).join('\n'))

  it.each([
    [
      'a job-level group as a string',
      WITHOUT_GROUP.replace('    runs-on: ubuntu-latest', `    runs-on: ubuntu-latest\n    concurrency: stats-${BOT}`),
      false
    ],
    ['a job-level group object', WITH_GROUP, false],
    ['a blank string', WITHOUT_GROUP.replace('    runs-on: ubuntu-latest', "    runs-on: ubuntu-latest\n    concurrency: '  '"), true],
    ['a blank group', WITH_GROUP.replace(`group: discord-place-stats-${BOT}`, "group: ' '"), true],
    ['a group that is not a string', WITH_GROUP.replace(`group: discord-place-stats-${BOT}`, 'group: 42'), true],
    [
      'a list instead of a mapping',
      WITHOUT_GROUP.replace('    runs-on: ubuntu-latest', '    runs-on: ubuntu-latest\n    concurrency: [a]'),
      true
    ],
    ['a blank workflow-level group', `concurrency: ''\n${WITHOUT_GROUP}`, true],
    ['a workflow-level group object', `concurrency:\n  group: stats\n${WITHOUT_GROUP}`, false]
  ])('%s: noGroup is %s', (_, text, noGroup) => {
    expect(inspectWorkflow(text, 'stats', true)).toEqual({ noGroup, tooOften: undefined })
  })

  it.each([
    ['every 6 h: too often, since scheduled runs start late', ['0 */6 * * *'], { cron: '0 */6 * * *', gapMinutes: 360 }],
    ['every 7 h at the closest: not too often', ['0 0,7,14 * * *'], undefined],
    ['every 5 h 59 at the closest', ['0 0 * * *', '0,59 0,6,12,18 * * *'], { cron: '0,59 0,6,12,18 * * *', gapMinutes: 59 }],
    ['every 5 h', ['0 0,5,10,15 * * *'], { cron: '0 0,5,10,15 * * *', gapMinutes: 300 }],
    ['an unreadable cron, then a frequent one', ['not a cron', '*/30 * * * *'], { cron: '*/30 * * * *', gapMinutes: 30 }],
    ['the first frequent cron is named', ['0 */2 * * *', '*/5 * * * *'], { cron: '0 */2 * * *', gapMinutes: 120 }]
  ])('cooldown-check: false, %s', (_, crons, tooOften) => {
    expect(inspectWorkflow(withSchedule(...crons), 'stats', false)).toEqual({ noGroup: false, tooOften })
  })

  it.each([
    ['a push trigger only', `on: push\njobs:\n  stats:\n    concurrency: g\n    runs-on: ubuntu-latest\n`],
    ['triggers as a list', `on: [push, workflow_dispatch]\njobs:\n  stats:\n    concurrency: g\n`],
    ['a schedule that is not a list', `on:\n  schedule:\n    cron: '*/5 * * * *'\njobs:\n  stats:\n    concurrency: g\n`],
    ['schedule entries without a cron', `on:\n  schedule:\n    - '*/5 * * * *'\n    - cron: 5\njobs:\n  stats:\n    concurrency: g\n`]
  ])('cooldown-check: false, %s: no schedule finding', (_, text) => {
    expect(inspectWorkflow(text, 'stats', false)).toEqual({ noGroup: false, tooOften: undefined })
  })

  it.each([
    ['jobs as a list', 'jobs:\n  - stats\n'],
    ['a job that is a string', 'jobs:\n  stats: uses ./x.yml\n'],
    ['no jobs', 'on: push\n'],
    ['an empty file', '']
  ])('%s: nothing to say', (_, text) => {
    expect(inspectWorkflow(text, 'stats', false)).toBeUndefined()
  })

  it('a job that calls a reusable workflow is not the job that ran the step: nothing to say', () => {
    const text = `on:\n  schedule:\n    - cron: '*/10 * * * *'\njobs:\n  stats:\n    uses: example/bot/.github/workflows/stats.yml@v1\n`
    expect(inspectWorkflow(text, 'stats', false)).toBeUndefined()
  })
})

describe('describeFindings: the words a bot owner reads', () => {
  const WHERE = '.github/workflows/stats.yml, job stats'
  const NO_GROUP =
    `its job has no concurrency group, so its runs can overlap with each other and with other workflows for this bot: add ` +
    `concurrency: { group: discord-place-stats-${BOT}, cancel-in-progress: false } to the job, and the same group to every job that updates this bot`
  const tooOften = (cron: string, every: string): string =>
    `it runs on the schedule "${cron}", whose runs can come ${every} apart (scheduled runs start late by minutes, unevenly), with ` +
    'cooldown-check: false, so a run less than 6 hours after the last update is a strike: keep cooldown-check: true, or leave more ' +
    'than 6 hours between runs (for example "0 */8 * * *")'

  it.each([
    ['no group', { noGroup: true, tooOften: undefined }, `shows why: ${NO_GROUP}.`],
    ['every 2 h', { noGroup: false, tooOften: { cron: '0 */2 * * *', gapMinutes: 120 } }, `shows why: ${tooOften('0 */2 * * *', '2 h')}.`],
    ['every 5 h 59 min', { noGroup: false, tooOften: { cron: 'c', gapMinutes: 359 } }, `shows why: ${tooOften('c', '5 h 59 min')}.`],
    ['every 45 min', { noGroup: false, tooOften: { cron: 'c', gapMinutes: 45 } }, `shows why: ${tooOften('c', '45 min')}.`],
    [
      'both',
      { noGroup: true, tooOften: { cron: '*/15 * * * *', gapMinutes: 15 } },
      `shows why: ${NO_GROUP}; and ${tooOften('*/15 * * * *', '15 min')}.`
    ]
  ])('%s, after a strike', (_, findings, said) => {
    expect(describeFindings(findings, WHERE, BOT)).toBe(`The workflow that ran this step (${WHERE}) ${said}`)
    expect(describeFindings(findings, WHERE, BOT, 'strike')).toBe(`The workflow that ran this step (${WHERE}) ${said}`)
  })

  it('in a dry run: what could cost a strike later', () => {
    expect(describeFindings({ noGroup: true, tooOften: undefined }, WHERE, BOT, 'dry-run')).toBe(
      `The workflow that ran this step (${WHERE}) could cost a strike later: ${NO_GROUP}.`
    )
    expect(describeFindings({ noGroup: false, tooOften: undefined }, WHERE, BOT, 'dry-run')).toBeUndefined()
  })
})

describe('diagnoseWorkflow: finding and reading the workflow file', () => {
  const PATH = '.github/workflows/stats.yml'
  const REF = `${REPOSITORY}/${PATH}@refs/heads/main`
  const NO_GROUP_SAID =
    `The workflow that ran this step (${PATH}, job stats) shows why: its job has no concurrency group, so its runs can overlap ` +
    `with each other and with other workflows for this bot: add concurrency: { group: discord-place-stats-${BOT}, cancel-in-progress: false } ` +
    'to the job, and the same group to every job that updates this bot.'

  async function diagnose(
    files: Record<string, string>,
    env: Record<string, string> = {},
    when: Evidence = 'allowed',
    more: Record<string, string> = {}
  ): Promise<string | undefined> {
    const workspace = await tempWorkspace(files)
    const settings = settingsFor<StatsSettings>(statsInputs({ url: 'http://127.0.0.1:9' }, { 'cooldown-check': 'false', ...more }), {
      GITHUB_WORKSPACE: workspace,
      GITHUB_WORKFLOW_REF: REF,
      GITHUB_JOB: 'stats',
      ...env
    })
    const requests = new Requests({ attemptTimeoutMs: settings.requestTimeoutMs, totalMs: settings.timeoutMs }, new TestClock())
    return diagnoseWorkflow(settings, { requests }, when)
  }

  async function github(files: Record<string, string>): Promise<GitHubFake> {
    const fake = await GitHubFake.start({ repository: REPOSITORY, sha: SHA, token: TOKEN, files })
    afterTest(() => fake.close())
    return fake
  }

  it('a file with no finding, after a strike the record allowed: the other update came from elsewhere, word for word', async () => {
    expect(await diagnose({ [PATH]: WITH_GROUP })).toBe(
      `The workflow that ran this step (${PATH}, job stats) has a concurrency group, so the other update came from another ` +
        'workflow, a manual run, or the bot itself: give every job that updates this bot the concurrency group ' +
        `discord-place-stats-${BOT}.`
    )
    expect(await diagnose({ [PATH]: WITH_GROUP }, {}, 'unchecked')).toBeUndefined()
  })

  it('a file with no finding, in a dry run: nothing said', async () => {
    expect(await diagnose({ [PATH]: WITH_GROUP }, {}, 'dry-run')).toBeUndefined()
  })

  it('a finding, in the workspace: said word for word', async () => {
    expect(await diagnose({ [PATH]: WITHOUT_GROUP })).toBe(NO_GROUP_SAID)
  })

  it('cooldown-check: true reads the schedule as harmless', async () => {
    expect(await diagnose({ [PATH]: EVERY_TWO_HOURS }, {}, 'dry-run', { 'cooldown-check': 'true' })).toBeUndefined()
    expect(await diagnose({ [PATH]: EVERY_TWO_HOURS }, {}, 'dry-run')).toMatch(
      /could cost a strike later: it runs on the schedule "0 \*\/2/
    )
  })

  it('in the reusable workflow: a strike the record allowed names the group word for word; otherwise nothing is said', async () => {
    const env = { DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: 'true' }
    expect(await diagnose({ [PATH]: WITHOUT_GROUP }, env)).toBe(
      `The step ran in the reusable workflow, whose job is always in the concurrency group discord-place-stats-${BOT}: ` +
        'the other update came from a workflow outside that group, a manual update, or the bot itself.'
    )
    expect(await diagnose({ [PATH]: WITHOUT_GROUP }, env, 'dry-run')).toBeUndefined()
    expect(await diagnose({ [PATH]: WITHOUT_GROUP }, env, 'unchecked')).toBeUndefined()
  })

  it.each([
    ['a branch ref', `${REPOSITORY}/${PATH}@refs/heads/main`, PATH],
    ['a tag ref', `${REPOSITORY}/${PATH}@refs/tags/v1.2.0`, PATH],
    ['a nested path', `${REPOSITORY}/ci/flows/stats.yml@main`, 'ci/flows/stats.yml']
  ])('GITHUB_WORKFLOW_REF with %s: the file at its path is read', async (_, ref, path) => {
    expect(await diagnose({ [path]: WITHOUT_GROUP }, { GITHUB_WORKFLOW_REF: ref })).toBe(NO_GROUP_SAID.replace(PATH, path))
  })

  it.each([
    ['no ref at all', { GITHUB_WORKFLOW_REF: '' }],
    ['no @ref', { GITHUB_WORKFLOW_REF: `${REPOSITORY}/${PATH}` }],
    ['no path', { GITHUB_WORKFLOW_REF: `${REPOSITORY}@refs/heads/main` }],
    ['no owner', { GITHUB_WORKFLOW_REF: `/bot/${PATH}@refs/heads/main` }],
    ['no job', { GITHUB_JOB: '' }],
    ['another job', { GITHUB_JOB: 'deploy' }]
  ])('%s: nothing said', async (_, env) => {
    expect(await diagnose({ [PATH]: WITHOUT_GROUP }, env)).toBeUndefined()
  })

  it('a ref not shaped owner/repo/path@ref is not read from further in: the file its tail would name stays unread', async () => {
    // Read from its second segment on, `/bot/.github/workflows/stats.yml@…` would name workflows/stats.yml.
    const files = { [PATH]: WITHOUT_GROUP, 'workflows/stats.yml': WITHOUT_GROUP }
    expect(await diagnose(files, { GITHUB_WORKFLOW_REF: `/bot/${PATH}@refs/heads/main` })).toBeUndefined()
    expect(await diagnose(files, { GITHUB_WORKFLOW_REF: `x/bot/${PATH}@refs/heads/main` })).toBe(NO_GROUP_SAID)
  })

  it('without GITHUB_JOB, the file is not fetched through the API: there is no job to read in it', async () => {
    const fake = await github({ [PATH]: WITHOUT_GROUP })
    const env = { GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_SHA: SHA, GITHUB_API_URL: fake.url }
    expect(await diagnose({}, { ...env, GITHUB_JOB: '' }, 'allowed', { 'github-token': TOKEN })).toBeUndefined()
    expect(fake.requests).toHaveLength(0)
    // The same run with its job named reads the file, in one request.
    expect(await diagnose({}, env, 'allowed', { 'github-token': TOKEN })).toBe(NO_GROUP_SAID)
    expect(fake.requests).toHaveLength(1)
  })

  it('a file at the size limit is read; one byte more is not, nor fetched (and without github-token, nothing is said)', async () => {
    const padded = (size: number): string => WITHOUT_GROUP + '#'.repeat(size - Buffer.byteLength(WITHOUT_GROUP))
    expect(await diagnose({ [PATH]: padded(MAX_WORKFLOW_BYTES) })).toBe(NO_GROUP_SAID)
    expect(await diagnose({ [PATH]: padded(MAX_WORKFLOW_BYTES + 1) })).toBeUndefined()
  })

  it('a folder at the path is not read: the file comes through the API', async () => {
    const fake = await github({ [PATH]: WITHOUT_GROUP })
    const env = { GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_SHA: SHA, GITHUB_API_URL: fake.url }
    expect(await diagnose({ [`${PATH}/x`]: 'x' }, env, 'allowed', { 'github-token': TOKEN })).toBe(NO_GROUP_SAID)
    expect(fake.requests).toHaveLength(1)
  })

  it('through the API, GITHUB_SHA stands in for GITHUB_WORKFLOW_SHA', async () => {
    const fake = await github({ [PATH]: WITHOUT_GROUP })
    expect(
      await diagnose({}, { GITHUB_REPOSITORY: REPOSITORY, GITHUB_SHA: SHA, GITHUB_API_URL: fake.url }, 'allowed', { 'github-token': TOKEN })
    ).toBe(NO_GROUP_SAID)
  })

  it.each([
    ['no github-token', { GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_SHA: SHA }, {}],
    ['no repository', { GITHUB_WORKFLOW_SHA: SHA }, { 'github-token': TOKEN }],
    ['no commit', { GITHUB_REPOSITORY: REPOSITORY }, { 'github-token': TOKEN }]
  ])('without a checkout and %s: no request, nothing said', async (_, env, more) => {
    const fake = await github({ [PATH]: WITHOUT_GROUP })
    expect(await diagnose({}, { ...env, GITHUB_API_URL: fake.url }, 'allowed', more)).toBeUndefined()
    expect(fake.requests).toHaveLength(0)
  })

  it('through the API, a file at the size limit is read', async () => {
    const fake = await github({ [PATH]: WITHOUT_GROUP + '#'.repeat(MAX_WORKFLOW_BYTES - WITHOUT_GROUP.length) })
    const env = { GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_SHA: SHA, GITHUB_API_URL: fake.url }
    expect(await diagnose({}, env, 'allowed', { 'github-token': TOKEN })).toBe(NO_GROUP_SAID)
  })

  it.each([
    ['a file over the limit', { [PATH]: WITHOUT_GROUP + '#'.repeat(MAX_WORKFLOW_BYTES) }],
    // The limit in characters, one byte more of UTF-8 (an é in a comment): measured in bytes, as the workspace's copy is.
    [
      'a file one byte over the limit with an é in it',
      { [PATH]: WITHOUT_GROUP + '#é' + '#'.repeat(MAX_WORKFLOW_BYTES - WITHOUT_GROUP.length - 2) }
    ],
    ['no such file', {}]
  ])('through the API, %s: nothing said, no crash', async (_, files) => {
    const fake = await github(files)
    const env = { GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_SHA: SHA, GITHUB_API_URL: fake.url }
    expect(await diagnose({}, env, 'allowed', { 'github-token': TOKEN })).toBeUndefined()
  })
})

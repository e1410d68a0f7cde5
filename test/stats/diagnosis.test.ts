/**
 * A strike explained from its workflow (src/stats/diagnosis.ts): after a strike, and in a dry run
 * as a set-up check, the workflow that ran the step is found, read (from the workspace, else
 * through GitHub's API) and what it shows is named: one cause, the one the evidence shows. A file
 * that cannot be found, read or parsed changes nothing. What a file shows, and its words:
 * workflow.test.ts; a stop during the read: stops.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { Requests } from '../../src/http/client.js'
import type { StatsSettings } from '../../src/settings.js'
import { diagnoseWorkflow, type Evidence, MAX_WORKFLOW_BYTES } from '../../src/stats/diagnosis.js'
import { recordFault } from '../../scripts/emulator/service.js'
import { GitHubFake } from '../support/fakes.js'
import {
  BOT,
  emulatedBot,
  type EmulatedBot,
  HOUR,
  settingsFor,
  statsInputs,
  statsRun,
  tempWorkspace,
  TestClock
} from '../support/inprocess.js'
import { afterTest } from '../support/teardown.js'

const REPOSITORY = 'example/bot'
const SHA = 'b'.repeat(40)
const TOKEN = 'ghs_diagnosisToken0123456789'
const PATH = '.github/workflows/stats.yml'
const START = new TestClock().now()
const REUSABLE = { DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: 'true' }
/** The step's job and the workflow that ran it. */
const RUN = { GITHUB_WORKFLOW_REF: `${REPOSITORY}/${PATH}@refs/heads/main`, GITHUB_JOB: 'stats' }

const UNGROUPED = `
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
const WITH_GROUP = UNGROUPED.replace(
  '    runs-on: ubuntu-latest',
  `    runs-on: ubuntu-latest\n    concurrency:\n      group: discord-place-stats-${BOT}\n      cancel-in-progress: false`
)
/** The start of what is said of a file at `path` (the words: workflow.test.ts). */
const shown = (what: string, path = PATH): string =>
  `The workflow that ran this step (${path}, job stats) ${what}`
const NO_GROUP = shown('shows why: its job has no concurrency group')
const everyTwoHours = (text: string): string => text.replace("'0 */8 * * *'", "'0 */2 * * *'")
const padded = (size: number, text = UNGROUPED): string =>
  text + '#'.repeat(size - Buffer.byteLength(text))

describe('diagnoseWorkflow: one cause, from the file that ran the step', () => {
  interface Case {
    /** The workspace's files: UNGROUPED at PATH unless told. */
    files?: Record<string, string>
    env?: Record<string, string>
    evidence?: Evidence
    inputs?: Record<string, string>
    /**
     * Files GitHub's API serves: a fake is started, with the repository, the commit and
     * github-token.
     */
    api?: Record<string, string>
    /**
     * What is said: the whole text (undefined: nothing), or its start when the words are pinned in
     * workflow.test.ts.
     */
    said?: string
    starts?: string
    /** Requests GitHub's API received. */
    fetched?: number
    /** The run's log lines. */
    logged?: string[]
  }
  const TOO_LARGE = [
    'The workflow that ran this step (.github/workflows/stats.yml) is larger than 128 KiB, so its schedule and concurrency group were not checked.'
  ]
  const ELSEWHERE =
    `${shown('has a concurrency group')}, so the other update came from another workflow, a manual run, or the bot itself: give ` +
    `every job that updates this bot the concurrency group discord-place-stats-${BOT}.`
  const IN_REUSABLE =
    `The step ran in the reusable workflow, whose job is always in the concurrency group discord-place-stats-${BOT}: ` +
    'the other update came from a workflow outside that group, a manual update, or the bot itself.'
  const GROUPED = { [PATH]: WITH_GROUP }
  const OFTEN = { [PATH]: everyTwoHours(UNGROUPED) }
  const GROUPED_OFTEN = { [PATH]: everyTwoHours(WITH_GROUP) }
  const NESTED = 'ci/flows/stats.yml'
  /** No checkout: the file is on GitHub only. */
  const API = { files: {}, api: { [PATH]: UNGROUPED } }
  const ref = (value: string) => ({ GITHUB_WORKFLOW_REF: value })

  it.each<[string, Case]>([
    // What the evidence lets the file show.
    [
      'a group, after a strike the record allowed: the other update came from elsewhere',
      { files: GROUPED, said: ELSEWHERE }
    ],
    [
      'a group, after a strike sent unchecked: nothing to say',
      { files: GROUPED, evidence: 'unchecked' }
    ],
    ['a group, in a dry run: nothing to say', { files: GROUPED, evidence: 'dry-run' }],
    ['no group, after a strike the record allowed: the group to add', { starts: NO_GROUP }],
    // A concurrency group would not have stopped an update sent unchecked: only its schedule
    // explains it.
    [
      'no group, every 8 h, after a strike sent unchecked: nothing to say',
      { evidence: 'unchecked' }
    ],
    [
      'no group, every 2 h, unchecked: the schedule alone',
      { files: OFTEN, evidence: 'unchecked', starts: shown('shows why: it') }
    ],
    [
      'grouped, every 2 h, a dry run: a later strike',
      { files: GROUPED_OFTEN, evidence: 'dry-run', starts: shown('could cost a strike later: it') }
    ],
    [
      'grouped, every 2 h, cooldown-check: true',
      { files: GROUPED_OFTEN, evidence: 'dry-run', inputs: { 'cooldown-check': 'true' } }
    ],
    [
      'in the reusable workflow, after a strike the record allowed: its group named',
      { env: REUSABLE, said: IN_REUSABLE }
    ],
    [
      'in the reusable workflow, in a dry run: nothing to say',
      { env: REUSABLE, evidence: 'dry-run' }
    ],
    [
      'in the reusable workflow, after a strike sent unchecked: nothing to say',
      { env: REUSABLE, evidence: 'unchecked' }
    ],
    // Finding the file: GITHUB_WORKFLOW_REF is owner/repo/path@ref.
    ['a ref at a tag', { env: ref(`${REPOSITORY}/${PATH}@refs/tags/v1.2.0`), starts: NO_GROUP }],
    [
      'a nested path',
      {
        files: { [NESTED]: UNGROUPED },
        env: ref(`${REPOSITORY}/${NESTED}@main`),
        starts: shown('shows why', NESTED)
      }
    ],
    ['no ref', { env: ref('') }],
    ['a ref without @', { env: ref(`${REPOSITORY}/${PATH}`) }],
    ['a ref without a path', { env: ref(`${REPOSITORY}@refs/heads/main`) }],
    // Read from its second segment on, the ref would name workflows/stats.yml, which is there.
    [
      'a ref without an owner',
      {
        files: { [PATH]: UNGROUPED, 'workflows/stats.yml': UNGROUPED },
        env: ref(`/bot/${PATH}@main`)
      }
    ],
    ['no GITHUB_JOB', { env: { GITHUB_JOB: '' } }],
    ['another job', { env: { GITHUB_JOB: 'deploy' } }],
    // Reading it: from the workspace, up to the size limit in bytes, else through GitHub's API.
    [
      'a file at the size limit',
      { files: { [PATH]: padded(MAX_WORKFLOW_BYTES) }, starts: NO_GROUP }
    ],
    [
      'a file a byte over it: not read, nor fetched, and said in one line',
      {
        files: { [PATH]: padded(MAX_WORKFLOW_BYTES + 1) },
        api: API.api,
        fetched: 0,
        logged: TOO_LARGE
      }
    ],
    [
      'no checkout: through the API, at the workflow’s commit',
      { ...API, starts: NO_GROUP, fetched: 1 }
    ],
    [
      'a folder at the path: through the API',
      { ...API, files: { [`${PATH}/x`]: 'x' }, starts: NO_GROUP, fetched: 1 }
    ],
    [
      'through the API, at GITHUB_SHA',
      { ...API, env: { GITHUB_WORKFLOW_SHA: '', GITHUB_SHA: SHA }, starts: NO_GROUP, fetched: 1 }
    ],
    ['no checkout and no GITHUB_JOB: not fetched', { ...API, env: { GITHUB_JOB: '' }, fetched: 0 }],
    ['no checkout and no github-token', { ...API, inputs: { 'github-token': '' }, fetched: 0 }],
    ['no checkout and no repository', { ...API, env: { GITHUB_REPOSITORY: '' }, fetched: 0 }],
    ['no checkout and no commit', { ...API, env: { GITHUB_WORKFLOW_SHA: '' }, fetched: 0 }],
    [
      'through the API, a file at the size limit',
      { files: {}, api: { [PATH]: padded(MAX_WORKFLOW_BYTES) }, starts: NO_GROUP, fetched: 1 }
    ],
    [
      'through the API, a file over it',
      {
        files: {},
        api: { [PATH]: padded(MAX_WORKFLOW_BYTES + 1) },
        fetched: 1,
        logged: TOO_LARGE
      }
    ],
    // The limit in characters, a byte over it in UTF-8.
    [
      'through the API, a byte over it with an é',
      {
        files: {},
        api: { [PATH]: padded(MAX_WORKFLOW_BYTES + 1, `${UNGROUPED}#é`) },
        fetched: 1,
        logged: TOO_LARGE
      }
    ],
    ['through the API, no such file', { files: {}, api: {}, fetched: 1 }]
  ])(
    '%s',
    async (
      _,
      {
        files = { [PATH]: UNGROUPED },
        env = {},
        evidence = 'allowed',
        inputs = {},
        api,
        said,
        starts,
        fetched,
        logged = []
      }
    ) => {
      const github =
        api === undefined
          ? undefined
          : await GitHubFake.start({ repository: REPOSITORY, sha: SHA, token: TOKEN, files: api })
      if (github !== undefined) afterTest(() => github.close())
      const fromApi: Record<string, string> =
        github === undefined
          ? {}
          : { GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_SHA: SHA, GITHUB_API_URL: github.url }
      const settings = settingsFor<StatsSettings>(
        statsInputs(
          { url: 'http://127.0.0.1:9' },
          { 'cooldown-check': 'false', 'github-token': TOKEN, ...inputs }
        ),
        { ...RUN, GITHUB_WORKSPACE: await tempWorkspace(files), ...fromApi, ...env }
      )
      const requests = new Requests(
        { attemptTimeoutMs: settings.requestTimeoutMs, totalMs: settings.timeoutMs },
        new TestClock()
      )
      const log: string[] = []
      const text = await diagnoseWorkflow(
        settings,
        { requests, log: line => log.push(line) },
        evidence
      )
      if (starts === undefined) expect(text).toBe(said)
      else expect(text?.startsWith(starts), text).toBe(true)
      expect(github?.requests.length).toBe(fetched)
      expect(log).toEqual(logged)
    }
  )
})

describe('a strike explained from its workflow, in a run (the file: no group, every 2 h)', () => {
  /**
   * The live service stamps a new bot's command count with its creation time
   * (service-behaviour.md).
   */
  const firstDay = {
    seed: { verified: false, createdAt: new Date(START - HOUR), commandsUpdatedAt: undefined }
  }
  const unchecked = { 'cooldown-check': 'false' }

  it.each<{
    label: string
    bot: EmulatedBot
    inputs: Record<string, string>
    found: object
    said: RegExp | undefined
    more?: Record<string, string>
  }>([
    // The first read shows an update 7 hours ago (so the update is sent), the next one an hour ago.
    {
      label: 'a strike the record allowed: the group to add',
      bot: { ago: HOUR },
      inputs: {},
      found: { strikeCause: 'overlap' },
      said: /shows why: its job has no/
    },
    {
      label: 'a strike sent unchecked: its schedule alone',
      bot: { ago: HOUR },
      inputs: unchecked,
      found: { strikeCause: 'unchecked' },
      said: /shows why: it runs on the/
    },
    {
      label: 'the first day (the re-read answers "not verified"): not read',
      bot: firstDay,
      inputs: unchecked,
      found: { strikeCause: 'unverified' },
      said: undefined
    },
    {
      label: 'in the reusable workflow: its group',
      bot: { ago: HOUR },
      inputs: {},
      found: { strikeCause: 'overlap' },
      said: /The step ran in the reusable/,
      more: REUSABLE
    },
    {
      label: 'a run that skips (updated 2 hours ago): not read',
      bot: { ago: 2 * HOUR },
      inputs: {},
      found: { result: 'skipped', warnings: [] },
      said: undefined
    },
    // Nothing happened in a dry run: the finding is what could cost a strike, as a warning.
    {
      label: 'a dry run: a warning',
      bot: {},
      inputs: { 'dry-run': 'true' },
      found: { result: 'dry-run', error: undefined },
      said: /could cost a strike later: its job/
    }
  ])('$label', async ({ bot, inputs, found, said, more = {} }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, bot)
    if (bot.ago === HOUR && inputs['cooldown-check'] !== 'false')
      emulator.inject('record', recordFault(BOT, new Date(START - 7 * HOUR)))
    const env = {
      ...RUN,
      GITHUB_WORKSPACE: await tempWorkspace({ [PATH]: everyTwoHours(UNGROUPED) })
    }
    const { outcome } = await statsRun(statsInputs(emulator, inputs), {
      clock,
      env: { ...env, ...more }
    })
    expect(outcome).toMatchObject({ result: 'cooldown', ...found })
    const texts = [outcome.error?.message ?? '', ...outcome.warnings].join('\n')
    expect(texts.match(/The (workflow that|step) ran/g) ?? [], 'said once').toHaveLength(
      said ? 1 : 0
    )
    if (said) expect(texts).toMatch(said)
  })
})

/**
 * A schedule that never goes quiet (src/stats/schedule.ts, interface.md 2026-11-29): a run
 * started by the schedule in a public repository warns from 45 days after the repository's last
 * push, fails from 55 days when stale-after is set (the stats run and its outputs unchanged),
 * warns once the date has passed, and says nothing anywhere else. The last push comes from the
 * event, or, only when the event names none, from one read of the repository after the update.
 * In process against the service emulator and GitHub's fake, on a clock the test controls.
 * The words, with placeholders, are pinned by docs/troubleshooting.md; the contract's sentence
 * with its dates filled in is pinned here once.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { JOB_TOKEN } from '../support/action.js'
import type { Fault } from '../../scripts/emulator/server.js'
import { GitHubFake } from '../support/fakes.js'
import {
  emulatedBot,
  HOUR,
  routes,
  statsInputs,
  tempWorkspace,
  TestClock
} from '../support/inprocess.js'
import { annotations, statsStep, type StatsStep } from '../support/step.js'
import { afterTest } from '../support/teardown.js'

const DAY = 24 * HOUR
/** Where every TestClock starts: 2026-11-24 12:00 UTC. */
const START = new TestClock().now()
const daysAgo = (days: number): Date => new Date(START - days * DAY)

const REPOSITORY = 'example/bot'
const STALE = { 'stale-after': '24' }

/** The runner's variables for a run started by `event` whose payload's repository is `repository`. */
async function runnerEnv(
  repository: Record<string, unknown> | undefined,
  event = 'schedule'
): Promise<Record<string, string>> {
  const dir = await tempWorkspace()
  const path = join(dir, 'event.json')
  const payload = { schedule: '17 */8 * * *', workflow: '.github/workflows/stats.yml', repository }
  await writeFile(path, JSON.stringify(repository === undefined ? {} : payload))
  return { GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: path, GITHUB_REPOSITORY: REPOSITORY }
}

/** GitHub's fake of the repository, with its record, closed when the test finishes. */
async function githubFake(record: { private?: boolean; pushed_at?: string | null } = {}) {
  const fake = await GitHubFake.start({
    repository: REPOSITORY,
    sha: 'a'.repeat(40),
    token: JOB_TOKEN,
    files: {},
    record
  })
  afterTest(() => fake.close())
  return fake
}

/**
 * A stats step (an update is due) with these inputs and runner variables, GitHub's fake given as
 * the API it may read; the step's report read back.
 */
async function scheduledStep(
  more: Record<string, string>,
  env: Record<string, string>,
  github?: GitHubFake,
  clock = new TestClock()
): Promise<StatsStep & { service: Awaited<ReturnType<typeof emulatedBot>> }> {
  const service = await emulatedBot(clock)
  const api: Record<string, string> = github === undefined ? {} : { GITHUB_API_URL: github.url }
  const inputs = statsInputs(service, { 'github-token': JOB_TOKEN, ...more })
  return { ...(await statsStep(inputs, clock, { ...env, ...api })), service }
}

/** The annotations about the schedule: their kind and title. */
const scheduleNotes = (step: StatsStep) =>
  step.commands
    .filter(c => /^Schedule/.test(c.properties['title'] ?? ''))
    .map(c => [c.command, c.properties['title']])

describe('the estimate from the event: the days since the last push decide, with no request', () => {
  const SOON = [['warning', 'Schedule disabled soon']]
  const PAST = [['warning', 'Schedule past 60 days without a push']]
  it.each([
    { label: 'day 44', days: 44, stale: false, stage: undefined, around: undefined, notes: [] },
    {
      label: 'day 44, stale-after',
      days: 44,
      stale: true,
      stage: undefined,
      around: undefined,
      notes: []
    },
    { label: 'day 45', days: 45, stale: false, stage: 'soon', around: '2026-12-09', notes: SOON },
    {
      label: 'day 54, stale-after',
      days: 54,
      stale: true,
      stage: 'soon',
      around: '2026-11-30',
      notes: SOON
    },
    { label: 'day 55', days: 55, stale: false, stage: 'soon', around: '2026-11-29', notes: SOON },
    {
      label: 'day 55, stale-after',
      days: 55,
      stale: true,
      stage: 'failing',
      around: '2026-11-29',
      notes: []
    },
    { label: 'day 59', days: 59, stale: false, stage: 'soon', around: '2026-11-25', notes: SOON },
    {
      label: 'day 59, stale-after',
      days: 59,
      stale: true,
      stage: 'failing',
      around: '2026-11-25',
      notes: []
    },
    {
      label: 'day 60, stale-after',
      days: 60,
      stale: true,
      stage: 'past',
      around: '2026-11-24',
      notes: PAST
    },
    { label: 'day 75', days: 75, stale: false, stage: 'past', around: '2026-11-09', notes: PAST },
    {
      label: 'day 75, stale-after',
      days: 75,
      stale: true,
      stage: 'past',
      around: '2026-11-09',
      notes: PAST
    }
  ])('$label: $stage', async ({ days, stale, stage, around, notes }) => {
    const github = await githubFake()
    const env = await runnerEnv({ private: false, pushed_at: daysAgo(days).toISOString() })
    const step = await scheduledStep(stale ? STALE : {}, env, github)
    expect(github.requests, 'the event names the last push').toEqual([])
    expect(routes(step.service), 'the stats run as it would be').toEqual(['GET ', 'PATCH /stats'])
    expect(step.outcome.schedule?.stage).toBe(stage)
    expect(step.outputs).toMatchObject({ result: 'updated', status: '200' })
    expect(step.outputs['schedule-disabled-around']).toBe(around)
    expect(scheduleNotes(step)).toEqual(notes)
    if (stage === 'failing') {
      // The one error: the warning's sentence, then how the stats run went.
      expect(step.failure).toMatch(new RegExp(`^GitHub disables .* around ${around},`))
      expect(step.failure).toMatch(/keeps it running\. The counts were updated\.$/)
      expect(annotations(step, 'error'), 'main.ts prints it').toEqual([])
      expect(step.summary).toMatch(
        new RegExp(
          `^<h3>❌ .*: updated, next update from [^<]*; GitHub disables the schedule around ${around}</h3>`
        )
      )
    } else {
      expect(step.failure).toBeUndefined()
      expect(step.summary).toMatch(/^<h3>✅ /)
    }
    if (notes.length > 0) expect(step.summary).toContain(`⚠️ <strong>Warning:</strong> `)
  })

  it("the contract's sentence, with the last push's date and the one 60 days later", async () => {
    const clock = new TestClock(Date.parse('2026-12-08T12:00:00Z'))
    const env = await runnerEnv({ private: false, pushed_at: '2026-10-21T09:30:00Z' })
    const step = await scheduledStep({}, env, undefined, clock)
    expect(annotations(step, 'warning')).toEqual([
      "GitHub disables this workflow's schedule around 2026-12-20, 60 days after the last push to the repository " +
        "(2026-10-21): a public repository's schedules stop after 60 days without activity. A push (a commit to main) " +
        'keeps it running.'
    ])
    expect(step.outputs['schedule-disabled-around']).toBe('2026-12-20')
  })

  it('pushed_at in seconds since 1970, as a push payload writes it, reads as the same push', async () => {
    const pushed = daysAgo(57)
    const env = await runnerEnv({ private: false, pushed_at: pushed.getTime() / 1000 })
    const step = await scheduledStep(STALE, env)
    expect(step.outcome.schedule).toEqual({
      stage: 'failing',
      lastPush: new Date('2026-09-28T12:00:00Z'),
      disabledAround: new Date('2026-11-27T12:00:00Z')
    })
  })

  it('a stats run that does not update keeps its result and says how it went in the one error', async () => {
    const clock = new TestClock()
    const service = await emulatedBot(clock, { ago: 2 * HOUR })
    const env = await runnerEnv({ private: false, pushed_at: daysAgo(57).toISOString() })
    const inputs = statsInputs(service, { 'github-token': JOB_TOKEN, ...STALE })
    const step = await statsStep(inputs, clock, env)
    expect(step.outputs['result']).toBe('skipped')
    expect(step.failure).toMatch(
      /keeps it running\. Stats not sent: the counts were updated less than 6 hours ago/
    )
  })
})

describe('quiet everywhere else: no read, no word', () => {
  it.each([
    ['a private repository', { private: true, pushed_at: daysAgo(57).toISOString() }, 'schedule'],
    ['a private repository, its event naming no push', { private: true }, 'schedule'],
    ['a payload that does not say public', { pushed_at: daysAgo(57).toISOString() }, 'schedule'],
    ['a run started by a push', { private: false, pushed_at: daysAgo(57).toISOString() }, 'push'],
    ['a manual run', { private: false, pushed_at: daysAgo(57).toISOString() }, 'workflow_dispatch']
  ])('%s', async (_, repository, event) => {
    const github = await githubFake({ pushed_at: daysAgo(57).toISOString() })
    const step = await scheduledStep(STALE, await runnerEnv(repository, event), github)
    expect(github.requests).toEqual([])
    expect(step.outcome.schedule).toBeUndefined()
    expect(step.failure).toBeUndefined()
    expect(step.commands.filter(c => c.command !== 'add-mask')).toEqual([])
    expect(step.outputs['schedule-disabled-around']).toBeUndefined()
  })
})

describe('no pushed_at in the event: one read of the repository, after the update', () => {
  it('reads GET /repos/{owner}/{repo} with github-token once, after the PATCH, and decides from it', async () => {
    const github = await githubFake({ pushed_at: daysAgo(57).toISOString() })
    const step = await scheduledStep(STALE, await runnerEnv({ private: false }), github)
    expect(github.requests.map(r => `${r.method} ${r.path}`)).toEqual([`GET /repos/${REPOSITORY}`])
    expect(github.requests[0]!.headers.authorization).toMatch(new RegExp(`${JOB_TOKEN}$`))
    const patch = step.service.requests.find(r => r.method === 'PATCH')!
    expect(github.requests[0]!.receivedNs, 'after the update').toBeGreaterThan(patch.answeredNs)
    expect(step.outcome.schedule?.stage).toBe('failing')
    expect(step.outputs).toMatchObject({ result: 'updated' })
  })

  it('with no payload at all, the read also says whether the repository is public', async () => {
    const github = await githubFake({ private: true, pushed_at: daysAgo(57).toISOString() })
    const step = await scheduledStep(STALE, await runnerEnv(undefined), github)
    expect(github.requests).toHaveLength(1)
    expect(step.outcome.schedule).toBeUndefined()
    expect(step.commands.filter(c => c.command !== 'add-mask')).toEqual([])
  })

  const GITHUB_500: Fault = {
    kind: 'answer',
    status: 500,
    headers: { 'Content-Type': 'application/json' },
    body: '{"message":"Server Error"}'
  }
  const GITHUB_403: Fault = {
    kind: 'answer',
    status: 403,
    headers: { 'Content-Type': 'application/json' },
    body: '{"message":"Resource not accessible by integration","status":"403"}'
  }
  it.each([
    { label: 'a 403', fault: GITHUB_403, reason: /^403: Resource not accessible by integration$/ },
    { label: 'a 5xx, not tried again', fault: GITHUB_500, reason: /Server Error/ },
    { label: 'no answer', fault: { kind: 'hang' } as Fault, reason: /.+/ }
  ])('$label: one notice, a green step, the stats run unchanged', async ({ fault, reason }) => {
    const github = await githubFake({ pushed_at: daysAgo(57).toISOString() })
    github.inject('repository', fault)
    const more = { ...STALE, 'request-timeout': '1' }
    const step = await scheduledStep(more, await runnerEnv({ private: false }), github)
    expect(github.requests).toHaveLength(1)
    expect(step.outcome.schedule).toEqual({
      stage: 'unread',
      reason: expect.stringMatching(reason)
    })
    expect(scheduleNotes(step)).toEqual([['notice', 'Schedule not checked']])
    expect(step.commands.filter(c => c.command === 'warning')).toEqual([])
    expect(step.failure).toBeUndefined()
    expect(step.outputs).toMatchObject({ result: 'updated', status: '200' })
    expect(step.outputs['schedule-disabled-around']).toBeUndefined()
  })

  it('no github-token: one notice, no request', async () => {
    const github = await githubFake({ pushed_at: daysAgo(57).toISOString() })
    const step = await scheduledStep(
      { 'github-token': '' },
      await runnerEnv({ private: false }),
      github
    )
    expect(github.requests).toEqual([])
    expect(step.outcome.schedule).toEqual({ stage: 'unread', reason: 'no github-token' })
  })
})

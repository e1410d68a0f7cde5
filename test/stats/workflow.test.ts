/**
 * The workflow reader (src/stats/workflow.ts): how often a cron fires, as GitHub reads it, over
 * the whole calendar; what a workflow shows for the job that ran the step; the words a bot owner
 * reads, each pinned here. Finding and reading the file: diagnosis.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { describeFindings, inspectWorkflow, shortestGapMinutes } from '../../src/stats/workflow.js'
import { BOT } from '../support/inprocess.js'

describe('shortestGapMinutes: the closest two firings of a cron, over four years', () => {
  it.each([
    ['0 */2 * * *', 120],
    ['0 */8 * * *', 480],
    ['*/15 * * * *', 15],
    ['30 1,13 * * *', 720],
    ['5/20 * * * *', 20],
    ['* * * * *', 1],
    ['0 5 * * *', 1440],
    // The 6-hour line: a schedule is flagged at it and below.
    ['0 */6 * * *', 360],
    ['0 0,5 * * *', 300],
    ['0,59 0 * * *', 59],
    // Lists, ranges and steps, alone and together; space around and between the fields.
    ['0 1-3 * * *', 60],
    ['0 9-17/4 * * *', 240],
    ['0 0-10/10 * * *', 600],
    ['0-30/10 * * * *', 10],
    ['0 0-1,12 * * *', 60],
    ['30/15 * * * *', 15],
    ['  0\t*/2  * * *  ', 120],
    // Day of week: 7 is Sunday too, ranges and lists of days.
    ['0 0 * * 1-5', 1440],
    ['0 6 * * 0', 7 * 1440],
    ['0 0 * * 7', 7 * 1440],
    ['0 12 * * 6-7', 1440],
    ['0 0 * * 1,3', 2 * 1440],
    // Day of month alone; both day fields restricted: either day fires (a Monday the 2nd, then the
    // 3rd).
    ['0 0 1,15 * *', 14 * 1440],
    ['0 0 3 * 1', 1440],
    // Months other than January; every 5 hours from midnight: 20:15, then 00:15 the next day.
    ['0 */2 * 6 *', 120],
    ['0 */4 * 2,8 *', 240],
    ['15 */5 * 7-9 *', 240],
    // The last days of a month, which some months do not have; across midnight and a month's end.
    ['0 */3 31 * *', 180],
    ['0 0,12 29 * *', 720],
    ['0 0 30,31 * *', 1440],
    ['0 0,23 * * *', 60],
    ['30 23 31 * *', 31 * 1440],
    // Once a year, and on one weekday of one month.
    ['0 0 1 1 *', 365 * 1440],
    ['0 9 * 12 1', 7 * 1440]
  ])('%j: every %d minutes at the closest', (cron, gap) => {
    expect(shortestGapMinutes(cron)).toBe(gap)
  })

  it.each([
    ['not five fields', ['', '* * * *', '0 0 * * * *']],
    [
      'not cron syntax',
      [
        'a b c d e',
        'x5 * * * *',
        '5x * * * *',
        '1-2-3 * * * *',
        '*/0 * * * *',
        '5-1 * * * *',
        '0 5-1,7,8 * * *'
      ]
    ],
    [
      'out of range',
      [
        '61 * * * *',
        '0 24 * * *',
        '0 22-24 * * *',
        '0 0 0 * *',
        '0 0 32 * *',
        '0 0 0,1,2 * *',
        '0 0 * 0 *',
        '0 0 * 13 *'
      ]
    ],
    ['a weekday out of range', ['0 0 * * 8', '0 0 32 * 1', '0 0 1,2 * 8']],
    [
      'never (31 February, months of 30 days)',
      ['0 0 31 2 *', '0 0 31 4,6,9,11 *', '0 0,12 31 2 *']
    ],
    ['once in four years (a leap day)', ['0 12 29 2 *', '0 0 29 2 *']]
  ])('%s: undefined', (_, crons) => {
    for (const cron of crons) expect(shortestGapMinutes(cron), cron).toBeUndefined()
  })
})

describe("shortestGapMinutes in a schedule's timezone: real time, across daylight-saving changes", () => {
  // New York: summer time from the second Sunday in March (2:00 EST becomes 3:00 EDT), winter
  // time from the first Sunday in November (2:00 EDT becomes 1:00 EST). Sydney: the other way
  // round, summer time from October, winter time from April.
  it.each([
    // 7 hours apart by the wall clock; the spring night brings midnight and 7:00 6 hours apart.
    ['0 0,7,14 * * *', 'America/New_York', 360],
    ['0 0,7,14 * 3 *', 'America/New_York', 360],
    ['0 0,7,14 * 10 *', 'Australia/Sydney', 360],
    // The autumn night moves them 8 hours apart: never closer than the wall clock's 7.
    ['0 0,7,14 * 11 *', 'America/New_York', 420],
    ['0 0,7,14 * 4 *', 'Australia/Sydney', 420],
    // A zone without summer time, and UTC itself: the wall clock's gaps.
    ['0 0,7,14 * * *', 'Asia/Tokyo', 420],
    ['0 0,7,14 * * *', 'UTC', 420],
    // A time the spring night skips runs at the change (GitHub: "a 2:30 AM schedule advances to
    // 3:00 AM"), 23 h 30 min after the day before; one the autumn night repeats runs once.
    ['30 2 * * *', 'America/New_York', 1410],
    ['30 1 * 11 0', 'America/New_York', 7 * 1440],
    ['0 22 * * *', 'America/New_York', 1380],
    ['30 1,7 * * *', 'America/New_York', 300]
  ])('%j in %s: every %d minutes at the closest', (cron, zone, gap) => {
    expect(shortestGapMinutes(cron, zone)).toBe(gap)
  })

  it('a zone Intl does not know: undefined, as for a cron it cannot read', () => {
    expect(shortestGapMinutes('0 */2 * * *', 'Mars/Olympus_Mons')).toBeUndefined()
  })
})

describe('inspectWorkflow: the concurrency group and the schedule of the job that ran the step', () => {
  const GROUP = 'jobs: { stats: { concurrency: g } }'
  const UNGROUPED = 'jobs:\n  stats:\n    runs-on: ubuntu-latest\n'
  const job = (concurrency: string): string =>
    `jobs: { stats: { runs-on: x, concurrency: ${concurrency} } }`
  const crons = (...list: string[]): string =>
    `on: { schedule: [${list.map(cron => `{ cron: '${cron}' }`).join(', ')}] }\n${GROUP}`
  const noGroup = { noGroup: true, tooOften: undefined }
  const fine = { noGroup: false, tooOften: undefined }
  const often = (cron: string, gapMinutes: number) => ({
    noGroup: false,
    tooOften: { cron, gapMinutes }
  })

  it.each<[string, string, boolean, ReturnType<typeof inspectWorkflow>]>([
    ['a job without a group', UNGROUPED, true, noGroup],
    ['a job-level group as a string', GROUP, true, fine],
    ['a job-level group object', job('{ group: g, cancel-in-progress: false }'), true, fine],
    ['a blank string', job("'  '"), true, noGroup],
    ['a blank group', job("{ group: ' ' }"), true, noGroup],
    ['a group that is not a string', job('{ group: 42 }'), true, noGroup],
    ['a list instead of a mapping', job('[a]'), true, noGroup],
    ['a workflow-level group as a string', `concurrency: g\n${UNGROUPED}`, true, fine],
    ['a workflow-level group object', `concurrency:\n  group: g\n${UNGROUPED}`, true, fine],
    ['a blank workflow-level group', `concurrency: ''\n${UNGROUPED}`, true, noGroup],
    // GitHub's parser does not stop at a duplicate key either.
    ['a duplicate key elsewhere', `env:\n  A: 1\n  A: 2\n${UNGROUPED}`, true, noGroup],
    ['every 2 h with cooldown-check: true', crons('0 */2 * * *'), true, fine],
    ['every 2 h', crons('0 */2 * * *'), false, often('0 */2 * * *', 120)],
    // Scheduled runs start late, unevenly: every 6 h is too often.
    ['every 6 h', crons('0 */6 * * *'), false, often('0 */6 * * *', 360)],
    ['every 7 h at the closest', crons('0 0,7,14 * * *'), false, fine],
    [
      "every 7 h by New York's clock: 6 h apart on the spring night",
      `on: { schedule: [{ cron: '0 0,7,14 * * *', timezone: America/New_York }] }\n${GROUP}`,
      false,
      often('0 0,7,14 * * *', 360)
    ],
    [
      "every 7 h by Tokyo's clock, which has no summer time",
      `on: { schedule: [{ cron: '0 0,7,14 * * *', timezone: Asia/Tokyo }] }\n${GROUP}`,
      false,
      fine
    ],
    [
      'a daily cron, then a frequent one',
      crons('0 0 * * *', '0,59 0,6,12,18 * * *'),
      false,
      often('0,59 0,6,12,18 * * *', 59)
    ],
    [
      'an unreadable cron, then a frequent one',
      crons('not a cron', '*/30 * * * *'),
      false,
      often('*/30 * * * *', 30)
    ],
    [
      'two frequent crons: the first is named',
      crons('0 */2 * * *', '*/5 * * * *'),
      false,
      often('0 */2 * * *', 120)
    ],
    ['a push trigger only', `on: push\n${GROUP}`, false, fine],
    ['triggers as a list', `on: [push, workflow_dispatch]\n${GROUP}`, false, fine],
    [
      'a schedule that is not a list',
      `on: { schedule: { cron: '*/5 * * * *' } }\n${GROUP}`,
      false,
      fine
    ],
    [
      'schedule entries without a cron',
      `on: { schedule: ['*/5 * * * *', { cron: 5 }] }\n${GROUP}`,
      false,
      fine
    ],
    // Anchors and aliases, as the parser reads them: an alias names the last node before it with
    // its anchor, and shares it.
    ['a group through an alias', `x: &g grp\njobs: { stats: { concurrency: *g } }`, true, fine],
    [
      'the last anchor of a name before the alias',
      `a: &g grp\nb: &g ''\njobs: { stats: { concurrency: *g } }`,
      true,
      noGroup
    ],
    [
      'an alias before its anchor',
      `jobs: { stats: { concurrency: *g } }\nx: &g grp`,
      true,
      noGroup
    ],
    ['a job that holds itself', `jobs: { stats: &s { concurrency: g, again: *s } }`, true, fine],
    [
      'a schedule entry through an alias',
      `x: &c { cron: '0 */2 * * *' }\non: { schedule: [*c] }\n${GROUP}`,
      false,
      often('0 */2 * * *', 120)
    ],
    ['not YAML', 'jobs: [unclosed', false, undefined],
    ['two documents', `${GROUP}\n---\n${GROUP}`, false, undefined],
    ['not a mapping', '- a list', false, undefined],
    ['an empty file', '', false, undefined],
    ['no jobs', 'on: push', false, undefined],
    ['jobs as a list', 'jobs: [stats]', false, undefined],
    ['another job', 'jobs: { deploy: { concurrency: g } }', false, undefined],
    ['a job that is a string', 'jobs: { stats: uses ./x.yml }', false, undefined],
    // A job that calls a reusable workflow is not the job that ran the step.
    [
      'a job that calls a reusable workflow',
      `on: { schedule: [{ cron: '*/10 * * * *' }] }\njobs: { stats: { uses: ./s.yml } }`,
      false,
      undefined
    ]
  ])('%s (cooldown-check: %s)', (_, text, cooldownCheck, findings) => {
    expect(inspectWorkflow(text, 'stats', cooldownCheck)).toEqual(findings)
  })
})

describe('inspectWorkflow on a hostile file of 128 KiB: read or refused well within a deadline', () => {
  const SIZE = 128 * 1024
  const fill = (head: string, unit: (i: number) => string): string => {
    let text = head
    for (let i = 0; text.length + unit(i).length <= SIZE; i++) text += unit(i)
    return text
  }
  // Each took from 14 to 36 s with the parser's own alias lookup and error messages.
  it.each([
    [
      'thousands of anchors, each used once',
      fill(
        'jobs:\n  stats:\n    runs-on: x\nx:\n',
        i => `  - &s${i} v\n  - &c${i} [*s${i}]\n  - *c${i}\n`
      ),
      { noGroup: true, tooOften: undefined }
    ],
    ['120 KiB of `]`', ']'.repeat(120 * 1024), undefined],
    [
      'thousands of daily schedules, each in a time zone (about 20 ms each)',
      fill(
        'jobs:\n  stats:\n    runs-on: x\non:\n  schedule:\n',
        i =>
          `    - cron: '${i % 60} ${Math.floor(i / 60) % 24} * * *'\n      timezone: America/New_York\n`
      ),
      { noGroup: true, tooOften: undefined }
    ],
    ['a run of carriage returns inside a line', `]${'\r'.repeat(SIZE - 2)}x`, undefined]
  ])('%s', (_, text, findings) => {
    const started = performance.now()
    expect(inspectWorkflow(text, 'stats', false)).toEqual(findings)
    // timeout: 5, the step's deadline these files were tried with; about half a second on Node 24.
    expect(performance.now() - started).toBeLessThan(5_000)
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
  const often = (cron: string, gapMinutes: number) => ({ cron, gapMinutes })

  it.each([
    ['no group', { noGroup: true, tooOften: undefined }, NO_GROUP],
    [
      'every 2 h',
      { noGroup: false, tooOften: often('0 */2 * * *', 120) },
      tooOften('0 */2 * * *', '2 h')
    ],
    [
      'every 5 h 59 min',
      { noGroup: false, tooOften: often('c', 359) },
      tooOften('c', '5 h 59 min')
    ],
    ['every 45 min', { noGroup: false, tooOften: often('c', 45) }, tooOften('c', '45 min')],
    [
      'both',
      { noGroup: true, tooOften: often('*/15 * * * *', 15) },
      `${NO_GROUP}; and ${tooOften('*/15 * * * *', '15 min')}`
    ]
  ])('%s: why a strike came, and in a dry run what could cost one later', (_, findings, said) => {
    expect(describeFindings(findings, WHERE, BOT)).toBe(
      `The workflow that ran this step (${WHERE}) shows why: ${said}.`
    )
    expect(describeFindings(findings, WHERE, BOT, 'strike')).toBe(
      describeFindings(findings, WHERE, BOT)
    )
    expect(describeFindings(findings, WHERE, BOT, 'dry-run')).toBe(
      `The workflow that ran this step (${WHERE}) could cost a strike later: ${said}.`
    )
  })

  it('nothing found: nothing said', () => {
    expect(describeFindings({ noGroup: false, tooOften: undefined }, WHERE, BOT)).toBeUndefined()
    expect(
      describeFindings({ noGroup: false, tooOften: undefined }, WHERE, BOT, 'dry-run')
    ).toBeUndefined()
  })
})

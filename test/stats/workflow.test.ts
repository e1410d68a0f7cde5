/**
 * How often a schedule fires (shortestGapMinutes), over the whole calendar: cron fields as
 * GitHub reads them, and a cron limited to some months, to the last days of a month or to a
 * leap day read as GitHub runs it, not only as it would run in one January. A strike's
 * explanation and a dry run's warning rest on this gap. Reading a workflow file, and what is
 * said of it: workflow-diagnosis.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { inspectWorkflow, shortestGapMinutes } from '../../src/stats/workflow.js'

describe('shortestGapMinutes: how often a cron fires', () => {
  it.each([
    ['0 */2 * * *', 120],
    ['0 */8 * * *', 480],
    ['*/15 * * * *', 15],
    ['30 1,13 * * *', 720],
    ['0 0 * * 1-5', 1440],
    ['0 6 * * 0', 7 * 1440],
    ['0 0,3 * * *', 180],
    ['5/20 * * * *', 20]
  ])('%s: every %d minutes at the closest', (cron, gap) => {
    expect(shortestGapMinutes(cron)).toBe(gap)
  })

  it.each(['', '* * * *', '61 * * * *', 'a b c d e', '0 0 31 2 *'])('%j cannot be read, or never fires: undefined', cron => {
    expect(shortestGapMinutes(cron)).toBeUndefined()
  })
})

describe('shortestGapMinutes: cron fields as GitHub reads them', () => {
  it.each([
    // The 6-hour line: a schedule is flagged only below it.
    ['0 */6 * * *', 360],
    ['0 0,5 * * *', 300],
    ['0,59 0 * * *', 59],
    ['* * * * *', 1],
    ['0 5 * * *', 1440],
    // Lists, ranges and steps, alone and together.
    ['0 1-3 * * *', 60],
    ['0 9-17/4 * * *', 240],
    ['0 0-10/10 * * *', 600],
    ['0-30/10 * * * *', 10],
    ['0 0-1,12 * * *', 60],
    ['30/15 * * * *', 15],
    // Extra space around and between the fields.
    ['  0\t*/2  * * *  ', 120],
    // Day of week: 7 is Sunday too, ranges and lists of days.
    ['0 0 * * 7', 7 * 1440],
    ['0 12 * * 6-7', 1440],
    ['0 0 * * 1,3', 2 * 1440],
    // Day of month alone; both day fields restricted: either day fires (a Monday the 2nd, then the 3rd).
    ['0 0 1,15 * *', 14 * 1440],
    ['0 0 3 * 1', 1440],
    // One month named (January).
    ['0 */2 * 1 *', 120]
  ])('%j: every %d minutes at the closest', (cron, gap) => {
    expect(shortestGapMinutes(cron)).toBe(gap)
  })

  it.each([
    '0 0 * * * *',
    '*/0 * * * *',
    '5-1 * * * *',
    '0 24 * * *',
    '0 0 0 * *',
    '0 0 32 * *',
    '0 0 * 0 *',
    '0 0 * 13 *',
    '0 0 * * 8',
    'x5 * * * *',
    '5x * * * *',
    '1-2-3 * * * *',
    '0 0 0,1,2 * *',
    '0 22-24 * * *',
    '0 5-1,7,8 * * *',
    '0 0 32 * 1',
    '0 0 1,2 * 8',
    '0 0 29 2 *'
  ])('%j cannot be read, or fires at most once in four years: undefined', cron => {
    expect(shortestGapMinutes(cron)).toBeUndefined()
  })
})

describe('shortestGapMinutes over four years', () => {
  it.each([
    // Months other than January.
    ['0 */2 * 6 *', 120],
    ['0 */4 * 2,8 *', 240],
    // Every 5 hours from midnight: 20:15, then 00:15 the next day.
    ['15 */5 * 7-9 *', 240],
    // The last days of a month, which some months do not have.
    ['0 */3 31 * *', 180],
    ['0 0,12 29 * *', 720],
    ['0 0 30,31 * *', 1440],
    // Across midnight and across a month's end.
    ['0 0,23 * * *', 60],
    // 31 July to 31 August, 31 December to 31 January.
    ['30 23 31 * *', 31 * 1440],
    // Once a year, and on one weekday of one month.
    ['0 0 1 1 *', 365 * 1440],
    ['0 9 * 12 1', 7 * 1440]
  ])('%j: every %d minutes at the closest', (cron, gap) => {
    expect(shortestGapMinutes(cron)).toBe(gap)
  })

  it.each([
    ['0 0 31 2 *', 'never (31 February)'],
    ['0 0 31 4,6,9,11 *', 'never (months of 30 days)'],
    ['0 12 29 2 *', 'once in four years (a leap day)']
  ])('%j fires %s: undefined', cron => {
    expect(shortestGapMinutes(cron)).toBeUndefined()
  })
})

describe('inspectWorkflow: a frequent schedule outside January', () => {
  const workflow = (cron: string): string =>
    [
      'on:',
      '  schedule:',
      `    - cron: '${cron}'`,
      'concurrency:',
      '  group: stats',
      'jobs:',
      '  stats:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: discord-place-bot-stats/discord-place-bot-stats@v1',
      '        with:',
      '          cooldown-check: false'
    ].join('\n')

  it.each([
    ['0 */2 * 6 *', 120],
    ['0 */3 31 * *', 180]
  ])('cooldown-check: false on %j: the finding names the cron and its gap', (cron, gap) => {
    expect(inspectWorkflow(workflow(cron), 'stats', false)?.tooOften).toEqual({ cron, gapMinutes: gap })
  })

  it('every 6 hours in June only is a finding (scheduled runs start late, unevenly); every 7 hours is not', () => {
    expect(inspectWorkflow(workflow('0 */6 * 6 *'), 'stats', false)?.tooOften).toEqual({ cron: '0 */6 * 6 *', gapMinutes: 360 })
    expect(inspectWorkflow(workflow('0 0,7,14 * 6 *'), 'stats', false)?.tooOften).toBeUndefined()
  })
})

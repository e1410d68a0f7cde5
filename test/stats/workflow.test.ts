/**
 * How often a schedule fires, over the whole calendar: a cron limited to some months, to the
 * last days of a month or to a leap day is read as GitHub runs it, not only as it would run in
 * one January. A strike's explanation and a dry run's warning rest on this gap.
 */
import { describe, expect, it } from 'vitest'
import { inspectWorkflow, shortestGapMinutes } from '../../src/stats/workflow.js'

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

  it('every 6 hours in June only is no finding', () => {
    expect(inspectWorkflow(workflow('0 */6 * 6 *'), 'stats', false)?.tooOften).toBeUndefined()
  })
})

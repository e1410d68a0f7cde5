/**
 * The stats mode's run (src/stats/update.ts): what it sends and when, in process against the
 * service emulator (which answers as service-behaviour.md says) on a clock the test controls.
 * A due update is sent once; the 6-hour window read from the record, with its margin, holds one
 * back; a bot not verified yet gets none (the first day); a dry run promises nothing a real run
 * would not do; overlapping runs cost at most one strike; an update whose answer was lost is
 * sent again only when the record proves it did not arrive; a bug is thrown. Elsewhere: a record
 * that cannot be trusted (record.test.ts), the counts (counts.test.ts), the service's answers
 * (answers.test.ts), the words of each outcome (report.test.ts), the delivery check itself
 * (delivery.test.ts), a stop (stops.test.ts), the transport's faults (faults.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { type Fault, jsonFault, recordFault, SIX_HOURS } from '../../scripts/emulator/service.js'
import {
  BOT,
  emulatedBot,
  type EmulatedBot,
  HOUR,
  KEY,
  MINUTE,
  routes,
  statsInputs,
  statsRun,
  TestClock,
  unreachableUrl
} from '../support/inprocess.js'

/** Where every TestClock starts. */
const START = new TestClock().now()
const READ = 'GET '
const PATCH = 'PATCH /stats'
const KEY_CHECK = `GET /voters/${BOT}`
/**
 * The live service stamps a new bot's command count with its creation time (service-behaviour.md).
 */
const FIRST_DAY: EmulatedBot = {
  seed: { verified: false, createdAt: new Date(START - HOUR), commandsUpdatedAt: undefined }
}
const UNCHECKED = { 'cooldown-check': 'false' }

describe('an update that is due', () => {
  it("reads the record, sends one PATCH with only the counts resolved and the key, under base-url's path prefix", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { service: { prefix: '/api/v1' } })
    const { outcome, log } = await statsRun(
      statsInputs(emulator, { 'base-url': `${emulator.url}/` }),
      { clock }
    )
    expect(emulator.requests.map(r => `${r.method} ${r.path}`)).toEqual([
      `GET /api/v1/bots/${BOT}`,
      `PATCH /api/v1/bots/${BOT}/stats`
    ])
    expect(emulator.requests[1]).toMatchObject({
      body: '{"command_count":14}',
      headers: { authorization: KEY }
    })
    expect(outcome).toMatchObject({
      result: 'updated',
      status: 200,
      delivery: 'answered',
      error: undefined
    })
    expect(outcome.nextUpdateAt?.getTime()).toBe(START + SIX_HOURS + MINUTE)
    expect(emulator.bot(BOT).commands).toBe(14)
    expect(log).toContain('The service answered 200')
  })

  it('with cooldown-check: false, sends without reading the record', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { outcome } = await statsRun(
      statsInputs(emulator, { ...UNCHECKED, 'command-count': '', 'server-count': '1250' }),
      { clock }
    )
    expect(routes(emulator)).toEqual([PATCH])
    expect(emulator.requests[0]!.body).toBe('{"server_count":1250}')
    expect(outcome.result).toBe('updated')
  })
})

describe('the 6-hour window read from the record, with its minute of margin', () => {
  it.each([
    ['2 hours ago: skipped, the key checked', 2 * HOUR, 'skipped'],
    ['a second short of the window and its margin: skipped', SIX_HOURS + MINUTE - 1000, 'skipped'],
    ['exactly the window and its margin: sent', SIX_HOURS + MINUTE, 'updated'],
    ['a second later: sent', SIX_HOURS + MINUTE + 1000, 'updated']
  ])('the last update %s', async (_, ago, result) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    const skipped = result === 'skipped'
    expect(routes(emulator)).toEqual(skipped ? [READ, KEY_CHECK] : [READ, PATCH])
    expect(outcome).toMatchObject(
      skipped
        ? { result, skip: 'recent', status: undefined, keyCheck: { state: 'valid' } }
        : { result, status: 200 }
    )
    // From the last update when skipped; from this one once sent.
    expect(outcome.nextUpdateAt?.getTime()).toBe(
      (skipped ? START - ago : START) + SIX_HOURS + MINUTE
    )
    expect(emulator.bot(BOT).strikes).toEqual([])
  })
})

describe('runs that send nothing, no strike', () => {
  const DRY = { 'dry-run': 'true' }
  const KEYLESS = { ...DRY, 'api-key': '' }
  const NOT_VERIFIED = {
    skip: 'unverified',
    record: { ok: false, problem: 'unverified', status: 403 }
  } as const
  const CACHED = recordFault(BOT, new Date(START - 7 * HOUR), { Age: '120' })
  const COUNTS = { command_count: 14, server_count: 1260 }
  const CACHE_WARNING = [expect.stringContaining('came from a cache')]
  // Each row: the bot (or the answer to its record read), the inputs, the requests received, the
  // outcome.
  it.each<{
    label: string
    bot: EmulatedBot | Fault
    inputs: Record<string, string>
    received: string[]
    expected: object
  }>([
    // The record's 403: the bot is not public until discord.place verifies it.
    {
      label: 'the first day: skipped, the key still checked',
      bot: FIRST_DAY,
      inputs: {},
      received: [READ, KEY_CHECK],
      expected: { ...NOT_VERIFIED, result: 'skipped' }
    },
    {
      label: 'the first day, a dry run: not sent either',
      bot: FIRST_DAY,
      inputs: DRY,
      received: [READ, KEY_CHECK],
      expected: { ...NOT_VERIFIED, result: 'dry-run' }
    },
    // A dry run needs no key, and reports the counts a real run would send.
    {
      label: 'a dry run without a key: the counts',
      bot: {},
      inputs: { ...KEYLESS, 'server-count': '1260' },
      received: [READ],
      expected: { result: 'dry-run', body: COUNTS }
    },
    {
      label: 'a dry run, a cached record: not sent either',
      bot: CACHED,
      inputs: KEYLESS,
      received: [READ],
      expected: { result: 'dry-run', skip: 'unchecked', warnings: CACHE_WARNING }
    }
  ])('$label', async ({ bot, inputs, received, expected }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, 'kind' in bot ? {} : bot)
    if ('kind' in bot) emulator.inject('record', bot)
    const { outcome } = await statsRun(statsInputs(emulator, inputs), { clock })
    expect(routes(emulator)).toEqual(received)
    expect(outcome).toMatchObject({
      skip: undefined,
      warnings: [],
      ...expected,
      status: undefined,
      delivery: 'not-sent',
      error: undefined
    })
    // The key is checked whenever there is one.
    expect(outcome.keyCheck).toEqual(received.includes(KEY_CHECK) ? { state: 'valid' } : undefined)
    expect(emulator.bot(BOT).strikes).toEqual([])
  })

  it.each([
    [
      'unreachable',
      async (clock: TestClock) => ({ 'base-url': await unreachableUrl(clock) }),
      'unreachable'
    ],
    [
      'a bot the service does not list (404)',
      async () => ({ 'bot-id': '999999999999999999' }),
      'absent'
    ]
  ] as const)(
    'a dry run with a record %s fails as a real run would, with the same error',
    async (_, more, problem) => {
      // interface.md, "A dry run fails where a real run would fail": the dry run promises nothing a
      // real run would not do.
      const clock = new TestClock()
      const emulator = await emulatedBot(clock)
      const given = { ...statsInputs(emulator), ...(await more(clock)) }
      const dry = await statsRun({ ...given, 'dry-run': 'true', 'api-key': '' }, { clock })
      const real = await statsRun(given, { clock })
      expect(dry.outcome).toMatchObject({ result: 'failed', record: { ok: false, problem } })
      expect(real.outcome).toMatchObject({ result: 'failed', record: { ok: false, problem } })
      expect(dry.outcome.error?.message).toBe(real.outcome.error?.message)
      expect(emulator.received('stats')).toEqual([])
    }
  )
})

describe('two runs for one bot', () => {
  it.each([
    ['queued by one concurrency group: the second reads the first one’s update and skips', false],
    // As two runs started together over the internet: both read the record before either update
    // lands.
    [
      'at once: the second read the record before the first update landed: one strike, and it names the overlap',
      true
    ]
  ])('%s', async (_, overlapping) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 7 * 24 * HOUR })
    const first = await statsRun(statsInputs(emulator), { clock })
    clock.advance(20_000)
    if (overlapping) emulator.inject('record', recordFault(BOT, new Date(START - 7 * 24 * HOUR)))
    const second = await statsRun(statsInputs(emulator), { clock })
    expect([first.outcome.result, second.outcome.result]).toEqual([
      'updated',
      overlapping ? 'cooldown' : 'skipped'
    ])
    expect(emulator.bot(BOT).strikes).toHaveLength(overlapping ? 1 : 0)
    if (!overlapping) return
    expect(routes(emulator).slice(2), 'the second read the record again after the refusal').toEqual(
      [READ, PATCH, READ]
    )
    expect(second.outcome).toMatchObject({
      strikeCause: 'overlap',
      overlap: new Date(START),
      nextUpdateAt: new Date(START + SIX_HOURS + MINUTE)
    })
    expect(second.log).toContain(
      'The service answered 429: You can only update stats once every 6 hours.'
    )
  })
})

describe('an update whose answer was lost', () => {
  it('a connection that could not be made: nothing reached the service, so the report says it was not sent', async () => {
    const clock = new TestClock()
    const { outcome } = await statsRun(
      statsInputs({ url: await unreachableUrl(clock) }, UNCHECKED),
      { clock }
    )
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent', status: undefined })
    expect(outcome.error?.message).toMatch(
      /^Stats update failed: could not connect to .* Nothing reached the service\./
    )
  })

  const RESENT =
    'The public record shows the update did not arrive and none is due before it; sending it once more.'
  const ARRIVED =
    'The connection failed after the update was sent, but the public record shows it arrived.'
  const CUT_ANSWER = /answer stopped after its status line/
  const RESET: Fault = { kind: 'reset' }
  const MAYBE = /may have reached the service, so it was not sent again/
  const TWICE = /^Stats update failed twice: /m
  const CACHED = recordFault(BOT, new Date(START - 30 * 24 * HOUR), { Age: '30' })
  const NOT_PUBLIC = jsonFault(403, {
    success: false,
    error: 'This bot is not verified yet.',
    status: 403
  })
  const FROM_CACHE =
    'The record came from a cache (Age > 0), so it cannot show that the update did not arrive.'
  const RETRIED = [READ, PATCH, READ, PATCH]
  const INTERIM: Fault = { kind: 'interim-then-reset' }
  const STORED: Fault = { kind: 'reset-after-handling' }
  const CUT: Fault = { kind: 'partial', status: 200, body: '{"success": tr' }
  const OVERFLOW: Fault = {
    kind: 'answer',
    status: 503,
    headers: { 'X-Padding': 'p'.repeat(20_000) },
    body: ''
  }
  // Each row: the faults of the PATCH; the record read first, or not ('unchecked'), or not and
  // answering the delivery check with this; the requests received; the result, status and delivery;
  // what the log (or the error) says.
  it.each<{
    label: string
    faults: Fault[]
    record: 'checked' | 'unchecked' | Fault
    received: string[]
    result: string
    status?: number
    delivery?: string
    said: string | RegExp
  }>([
    {
      label: 'an interim 103, then dropped: sent once more',
      faults: [INTERIM],
      record: 'checked',
      received: RETRIED,
      result: 'updated',
      status: 200,
      delivery: 'answered',
      said: RESENT
    },
    {
      label: 'dropped before it was read: sent once more',
      faults: [RESET],
      record: 'checked',
      received: RETRIED,
      result: 'updated',
      status: 200,
      delivery: 'answered',
      said: RESENT
    },
    {
      label: 'dropped once stored: arrived, not sent again',
      faults: [STORED],
      record: 'unchecked',
      received: [PATCH, READ],
      result: 'updated',
      delivery: 'arrived',
      said: ARRIVED
    },
    {
      label: 'dropped twice: not sent a third time',
      faults: [RESET, RESET],
      record: 'checked',
      received: RETRIED,
      result: 'failed',
      delivery: 'no-answer',
      said: TWICE
    },
    {
      label: 'dropped, the record not public (403): not sent again',
      faults: [RESET],
      record: NOT_PUBLIC,
      received: [PATCH, READ],
      result: 'failed',
      delivery: 'no-answer',
      said: MAYBE
    },
    {
      label: 'dropped, the record from a cache: not sent again',
      faults: [RESET],
      record: CACHED,
      received: [PATCH, READ],
      result: 'failed',
      delivery: 'no-answer',
      said: FROM_CACHE
    },
    // A received status line is an answer: not sent again, and no delivery check.
    {
      label: 'a status line, then the body cut off',
      faults: [CUT],
      record: 'unchecked',
      received: [PATCH],
      result: 'updated',
      status: 200,
      delivery: 'answered',
      said: CUT_ANSWER
    },
    {
      label: 'a status line, then headers that overflow',
      faults: [OVERFLOW],
      record: 'unchecked',
      received: [PATCH],
      result: 'failed',
      status: 503,
      delivery: 'answered',
      said: CUT_ANSWER
    }
  ])('$label', async ({ faults, record, received, result, status, delivery, said }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    if (typeof record !== 'string') emulator.inject('record', record)
    for (const fault of faults) emulator.inject('stats', fault)
    const { outcome, log } = await statsRun(
      statsInputs(emulator, record === 'checked' ? {} : UNCHECKED),
      { clock }
    )
    expect(routes(emulator)).toEqual(received)
    expect(outcome).toMatchObject({ result, status, delivery })
    expect(emulator.bot(BOT).strikes).toEqual([])
    if (typeof said === 'string') expect(log).toContain(said)
    else expect([...log, outcome.error?.message].join('\n')).toMatch(said)
  })
})

describe('a bug', () => {
  it('is thrown, not reported as an expected failure', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const bug = new TypeError('a bug')
    const onLog = (line: string): void => {
      if (line.startsWith('Sending PATCH')) throw bug
    }
    await expect(statsRun(statsInputs(emulator), { clock, onLog })).rejects.toBe(bug)
    expect(emulator.received('stats')).toEqual([])
  })
})

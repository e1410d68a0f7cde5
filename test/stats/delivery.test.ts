/**
 * The delivery check after a stats update whose answer was lost (src/stats/delivery.ts), in
 * process against the service emulator, on a clock the test controls: what a fresh read of the
 * public record proves. interface.md: a stats update is never sent again after a failure that
 * may have delivered it, "unless a fresh read of the public record shows that it did not
 * arrive"; a timeout never leads to a resend (the service may still be working on it), nor does an
 * earlier update within 6 hours, though the record shows it did not arrive; a cached record cannot
 * prove that something did not arrive. The run around it: update.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { Requests } from '../../src/http/client.js'
import { NetworkError } from '../../src/http/transport.js'
import { confirmDelivery } from '../../src/stats/delivery.js'
import type { StatsBody } from '../../src/stats/outcome.js'
import {
  type BotSeed,
  type Fault,
  recordFault,
  type ServiceEmulator,
  SIX_HOURS
} from '../../scripts/emulator/service.js'
import { BOT, emulatedBot, HOUR, MINUTE, TestClock } from '../support/inprocess.js'

/** When the PATCH went out: where every TestClock starts. */
const SENT = new TestClock().now()
const at = (offset: number): Date => new Date(SENT + offset)

/** A dropped connection after the request was out (it may have been read), and a timeout. */
const RESET = new NetworkError(
  'the connection to 127.0.0.1 failed (ECONNRESET)',
  'ECONNRESET',
  true
)
const TIMEOUT = new NetworkError('no complete answer from 127.0.0.1 within 30 s', 'ETIMEDOUT', true)

const COMMANDS = { command_count: 14 }
const SERVERS = { server_count: 1250 }

/**
 * What the PATCH sent (the command count unless told), how it failed (a dropped connection unless
 * told), the step's time left.
 */
interface Check {
  body?: StatsBody
  error?: NetworkError
  totalMs?: number
  signal?: AbortSignal
  log?: string[]
}

/** Runs the check as update.ts does, for a PATCH sent at SENT. */
function confirm(
  emulator: ServiceEmulator,
  clock: TestClock,
  { body = COMMANDS, error = RESET, totalMs = 900_000, signal, log = [] }: Check
) {
  const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs }, clock, signal)
  return confirmDelivery(
    { baseUrl: emulator.url, botId: BOT, body },
    { requests, log: line => log.push(line) },
    error,
    SENT
  )
}

interface Row extends Omit<Check, 'signal' | 'log'> {
  /** The bot, last updated 30 days ago unless told. */
  seed?: Partial<BotSeed>
  /** The record's answer instead of the bot's own. */
  record?: Fault
  /** The clock stands still through the wait before the read: the read sees SENT as now. */
  frozen?: true
  result: 'arrived' | 'resend' | 'not-arrived' | 'unknown'
  /** Record reads, and waits before them (one after a dropped connection, none after a timeout). */
  reads?: number
  waits?: number
  /** A line the log holds. */
  said?: string
}

describe('the delivery check: what the fresh record proves', () => {
  /**
   * The bot's record shows the command count, or the server count, updated `offset` ms after the
   * PATCH went out.
   */
  const commandsAt = (offset: number) => ({ seed: { commandsUpdatedAt: at(offset) } })
  const serversAt = (offset: number) => ({ seed: { serversUpdatedAt: at(offset) } })
  it.each<[string, Row]>([
    [
      'after a dropped connection: a wait, one read, and no update for 6 hours: resend',
      {
        result: 'resend',
        said: 'The stats update failed after it was sent (the connection to 127.0.0.1 failed (ECONNRESET)); reading the public record to see whether it arrived.'
      }
    ],
    [
      'after a timeout: read at once, and never a resend, even with no update for 6 hours',
      { error: TIMEOUT, result: 'not-arrived', waits: 0 }
    ],
    [
      'after a timeout, the command count stamped since: arrived',
      { error: TIMEOUT, ...commandsAt(1_000), result: 'arrived', waits: 0 }
    ],
    // A count sent shows an update time since the PATCH went out.
    ['the command count sent, and stamped since', { ...commandsAt(500), result: 'arrived' }],
    [
      'the server count sent, and stamped since',
      { body: SERVERS, ...serversAt(500), result: 'arrived' }
    ],
    [
      'both sent, the server count stamped since',
      { body: { ...COMMANDS, ...SERVERS }, ...serversAt(500), result: 'arrived' }
    ],
    // An update of a count not sent is not this update: not arrived, and not resent either.
    [
      'only the command count sent; the server count stamped',
      { ...serversAt(500), result: 'not-arrived' }
    ],
    [
      'only the server count sent; the command count stamped',
      { body: SERVERS, ...commandsAt(500), result: 'not-arrived' }
    ],
    // The service's clock may be behind by up to a minute; an earlier update within 6 hours makes a
    // resend early.
    ['stamped a minute before the PATCH: arrived', { ...commandsAt(-MINUTE), result: 'arrived' }],
    [
      'stamped a minute and a second before: an earlier update, not arrived, not resent',
      { ...commandsAt(-MINUTE - 1_000), result: 'not-arrived' }
    ],
    // The record accepts an update 6 hours and the minute of margin after the last one.
    [
      'the last update exactly 6 hours and the margin ago: resend',
      { frozen: true, ...commandsAt(-SIX_HOURS - MINUTE), result: 'resend' }
    ],
    [
      'a millisecond less: not arrived, not resent',
      { frozen: true, ...commandsAt(-SIX_HOURS - MINUTE + 1), result: 'not-arrived' }
    ],
    [
      'a record served from a cache (Age > 0) proves nothing',
      {
        record: recordFault(BOT, at(-30 * 24 * HOUR), { Age: '30' }),
        result: 'unknown',
        said: 'The record came from a cache (Age > 0), so it cannot show that the update did not arrive.'
      }
    ],
    ['an unreadable record (403) proves nothing', { seed: { verified: false }, result: 'unknown' }],
    [
      "the step's time leaves no room for the wait before the read: nothing read",
      { totalMs: 1_000, result: 'unknown', reads: 0, waits: 0 }
    ]
  ])('%s', async (_, { seed, record, body, error, frozen, totalMs, ...row }) => {
    const clock = new TestClock()
    if (frozen) clock.sleep = async ms => void clock.waits.push(ms)
    const emulator = await emulatedBot(clock, { ago: 30 * 24 * HOUR, seed })
    if (record !== undefined) emulator.inject('record', record)
    const log: string[] = []
    expect(await confirm(emulator, clock, { body, error, totalMs, log })).toBe(row.result)
    expect(emulator.received('record')).toHaveLength(row.reads ?? 1)
    expect(clock.waits).toEqual(Array(row.waits ?? 1).fill(expect.any(Number)))
    expect(clock.waits.every(ms => ms > 0)).toBe(true)
    if (row.said !== undefined) expect(log).toContain(row.said)
    // Only a cached record is said to be one.
    expect(log.some(line => line.includes('came from a cache'))).toBe(record !== undefined)
  })

  it('a stop during the check is not taken for an answer: it ends the check with the stop, and nothing is read', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const stop = new AbortController()
    stop.abort(new StoppedError('SIGTERM'))
    await expect(confirm(emulator, clock, { signal: stop.signal })).rejects.toBeInstanceOf(
      StoppedError
    )
    expect(emulator.requests).toEqual([])
  })
})

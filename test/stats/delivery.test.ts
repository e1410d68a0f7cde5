/**
 * The delivery check after a stats update whose answer was lost (src/stats/delivery.ts), in
 * process against the service emulator, on a clock the test controls: what a fresh read of
 * the public record proves. interface.md: a stats update is never sent again after a failure
 * that may have delivered it, "unless a fresh read of the public record shows that it did not
 * arrive"; a timeout never leads to a resend (the service may still be working on it); a
 * cached record cannot prove that something did not arrive.
 */
import { describe, expect, it } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { type Clock, Requests } from '../../src/http/client.js'
import { NetworkError } from '../../src/http/transport.js'
import { confirmDelivery } from '../../src/stats/delivery.js'
import { type BotSeed, ServiceEmulator, SIX_HOURS } from '../support/emulator.js'
import { BOT, emulatedBot, HOUR, TestClock } from '../support/inprocess.js'

const MINUTE = 60_000

/** The test's bot on the given clock, last updated 30 days ago. */
const service = (now: () => number, seed: Partial<BotSeed> = {}): Promise<ServiceEmulator> =>
  emulatedBot({ now }, { ago: 30 * 24 * HOUR, seed })

/** A dropped connection after the request was out (it may have been read), and a timeout. */
const RESET = new NetworkError('the connection to 127.0.0.1 failed (ECONNRESET)', 'ECONNRESET', true)
const TIMEOUT = new NetworkError('no complete answer from 127.0.0.1 within 30 s', 'ETIMEDOUT', true)

interface Check {
  result: Awaited<ReturnType<typeof confirmDelivery>>
  log: string[]
}

/** Runs the delivery check as update.ts does, for a PATCH sent at `sentAt` with `body`. */
async function check(
  emulator: ServiceEmulator,
  clock: Clock,
  body: { command_count?: number; server_count?: number },
  error: NetworkError,
  sentAt: number,
  options: { totalMs?: number; signal?: AbortSignal } = {}
): Promise<Check> {
  const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: options.totalMs ?? 900_000 }, clock, options.signal)
  const log: string[] = []
  const result = await confirmDelivery(
    { baseUrl: emulator.url, botId: BOT, body },
    { requests, log: line => log.push(line) },
    error,
    sentAt
  )
  return { result, log }
}

/** A clock that waits without moving: every read sees the same `now`. */
function frozenClock(at: number): Clock {
  return { now: () => at, sleep: async () => {}, random: () => 0.5 }
}

describe('the delivery check: what the fresh record proves', () => {
  it('says why it reads the record, and after a dropped connection waits a moment before reading it', async () => {
    const clock = new TestClock()
    const sentAt = clock.now()
    const emulator = await service(clock.now)
    const { result, log } = await check(emulator, clock, { command_count: 14 }, RESET, sentAt)
    expect(result).toBe('resend')
    expect(log[0]).toBe(
      'The stats update failed after it was sent (the connection to 127.0.0.1 failed (ECONNRESET)); reading the public record to see whether it arrived.'
    )
    expect(clock.waits, 'a wait before the read, for an update the service was still storing').toHaveLength(1)
    expect(clock.waits[0]).toBeGreaterThan(0)
    expect(clock.now()).toBeGreaterThan(sentAt)
    expect(emulator.received('record')).toHaveLength(1)
  })

  it('after a timeout reads at once and never resends, even when the record shows no update for 6 hours', async () => {
    const clock = new TestClock()
    const emulator = await service(clock.now)
    const { result, log } = await check(emulator, clock, { command_count: 14 }, TIMEOUT, clock.now())
    expect(result).toBe('unknown')
    expect(clock.waits, 'no wait: a timeout is never resent, so nothing is gained by waiting').toEqual([])
    expect(emulator.received('record')).toHaveLength(1)
    expect(log.join('\n')).not.toMatch(/cache/)
  })

  it('after a timeout, an update the record shows as stored is still "arrived"', async () => {
    const clock = new TestClock()
    const sentAt = clock.now()
    const emulator = await service(clock.now, { commandsUpdatedAt: new Date(sentAt + 1_000) })
    expect((await check(emulator, clock, { command_count: 14 }, TIMEOUT, sentAt)).result).toBe('arrived')
  })

  it.each([
    ['the command count', { command_count: 14 }, { commandsUpdatedAt: 'now' }],
    ['the server count', { server_count: 1250 }, { serversUpdatedAt: 'now' }],
    ['both counts, the server count stored', { command_count: 14, server_count: 1250 }, { serversUpdatedAt: 'now' }]
  ] as const)('"arrived" when %s sent shows an update time since the PATCH went out', async (_, body, stamped) => {
    const clock = new TestClock()
    const sentAt = clock.now()
    const seed = Object.fromEntries(Object.keys(stamped).map(key => [key, new Date(sentAt + 500)]))
    const emulator = await service(clock.now, seed)
    expect((await check(emulator, clock, body, RESET, sentAt)).result).toBe('arrived')
  })

  it.each([
    ['only the command count was sent; the server count was updated', { command_count: 14 }, 'serversUpdatedAt'],
    ['only the server count was sent; the command count was updated', { server_count: 1250 }, 'commandsUpdatedAt']
  ] as const)('an update of a count not sent is not this update (%s): unknown, not arrived, and not resent', async (_, body, other) => {
    const clock = new TestClock()
    const sentAt = clock.now()
    const emulator = await service(clock.now, { [other]: new Date(sentAt + 500) })
    expect((await check(emulator, clock, body, RESET, sentAt)).result).toBe('unknown')
  })

  it("counts an update time up to a minute before the PATCH went out as arrived (the service's clock behind), not earlier", async () => {
    const clock = new TestClock()
    const sentAt = clock.now()
    const aMinuteBehind = await service(clock.now, { commandsUpdatedAt: new Date(sentAt - MINUTE) })
    expect((await check(aMinuteBehind, clock, { command_count: 14 }, RESET, sentAt)).result).toBe('arrived')
    const clock2 = new TestClock()
    const earlier = await service(clock2.now, { commandsUpdatedAt: new Date(sentAt - MINUTE - 1_000) })
    // An update within 6 hours that is not this one: a resend would be early.
    expect((await check(earlier, clock2, { command_count: 14 }, RESET, sentAt)).result).toBe('unknown')
  })

  it('an earlier update within 6 hours (plus the margin): unknown, since a resend would be refused as early', async () => {
    const clock = new TestClock()
    const emulator = await service(clock.now, { commandsUpdatedAt: new Date(clock.now() - 2 * HOUR) })
    expect((await check(emulator, clock, { command_count: 14 }, RESET, clock.now())).result).toBe('unknown')
  })

  it('resends from the moment the record accepts an update, not a millisecond before', async () => {
    const now = new TestClock().now()
    // The record accepts an update 6 hours and the minute of margin after the last one.
    const due = await service(() => now, { commandsUpdatedAt: new Date(now - SIX_HOURS - MINUTE) })
    expect((await check(due, frozenClock(now), { command_count: 14 }, RESET, now)).result).toBe('resend')
    const early = await service(() => now, { commandsUpdatedAt: new Date(now - SIX_HOURS - MINUTE + 1) })
    expect((await check(early, frozenClock(now), { command_count: 14 }, RESET, now)).result).toBe('unknown')
  })

  it('a record served from a cache (Age > 0) proves nothing: unknown, and the log says why', async () => {
    const clock = new TestClock()
    const emulator = await service(clock.now)
    const old = new Date(clock.now() - 30 * 24 * HOUR).toISOString()
    emulator.inject('record', {
      kind: 'answer',
      status: 200,
      headers: { 'Content-Type': 'application/json', Age: '30' },
      body: JSON.stringify({ id: BOT, commands: 12, commands_updated_at: old, servers: 1204, servers_updated_at: old })
    })
    const { result, log } = await check(emulator, clock, { command_count: 14 }, RESET, clock.now())
    expect(result).toBe('unknown')
    expect(log).toContain('The record came from a cache (Age > 0), so it cannot show that the update did not arrive.')
  })

  it('an unreadable record proves nothing: unknown', async () => {
    const clock = new TestClock()
    const emulator = await service(clock.now, { verified: false })
    expect((await check(emulator, clock, { command_count: 14 }, RESET, clock.now())).result).toBe('unknown')
  })

  it("when the step's time limit leaves no room for the read: unknown, and nothing is read", async () => {
    const clock = new TestClock()
    const emulator = await service(clock.now)
    // A second left: the wait before the read does not fit.
    const { result } = await check(emulator, clock, { command_count: 14 }, RESET, clock.now(), { totalMs: 1_000 })
    expect(result).toBe('unknown')
    expect(emulator.requests).toEqual([])
  })

  it('a stop during the check is not taken for an answer: it ends the check with the stop', async () => {
    const clock = new TestClock()
    const emulator = await service(clock.now)
    const stop = new AbortController()
    stop.abort(new StoppedError('SIGTERM'))
    await expect(check(emulator, clock, { command_count: 14 }, RESET, clock.now(), { signal: stop.signal })).rejects.toBeInstanceOf(
      StoppedError
    )
    expect(emulator.requests).toEqual([])
  })
})

/**
 * The request helper (src/http/client.ts): every request goes through it, under the step's
 * deadline and the run's stop signal, retried as its policy says. Against a loopback server that
 * answers as each test needs, on a clock the test controls (a wait moves it on at once).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { getEventListeners } from 'node:events'
import * as http from 'node:http'
import * as net from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { DeadlineError, type Gate, type Policy, Requests, realClock } from '../../src/http/client.js'
import { type HttpAnswer, NetworkError } from '../../src/http/transport.js'
import { KEY_CHECK_POLICY } from '../../src/keys.js'
import { RECORD_POLICY } from '../../src/stats/record.js'
import { STATS_POLICY } from '../../src/stats/update.js'
import { VOTE_POLICY } from '../../src/votes/check.js'
import { TestClock } from '../support/inprocess.js'
import { listenForTest } from '../support/server.js'
import { afterTest } from '../support/teardown.js'

/** Each caller's own policy, as the client receives it (the client names no caller). */
const [RECORD, STATS, KEY_CHECK, VOTE] = [RECORD_POLICY, STATS_POLICY, KEY_CHECK_POLICY, VOTE_POLICY]

type Reply = { status: number; headers?: Record<string, string>; body?: string }
/** What the server does with a request: answers it, or reads it whole and closes the connection unanswered. */
type Act = Reply | 'drop'

/** Handles the nth request as `acts[n]` (the last one again after that), and keeps the body of each request it read. */
function scripted(acts: Act[], bodies: string[]): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const act = acts[Math.min(bodies.length, acts.length - 1)]!
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      if (act === 'drop') res.socket?.destroy()
      else res.writeHead(act.status, act.headers).end(act.body ?? '')
    })
  }
}

async function script(...acts: Act[]): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = []
  return { url: `http://127.0.0.1:${await listenForTest(http.createServer(scripted(acts, bodies)))}`, bodies }
}

/** A server answering 200 on a port nothing listens on yet: `open()` starts it there. */
async function notYetListening(): Promise<{ url: string; bodies: string[]; open: () => Promise<void> }> {
  const bodies: string[] = []
  const server = http.createServer(scripted([{ status: 200 }], bodies))
  const port = await listenForTest(server)
  await new Promise(resolve => server.close(resolve))
  const open = (): Promise<void> => new Promise(resolve => (server.listening ? resolve() : server.listen(port, '127.0.0.1', resolve)))
  return { url: `http://127.0.0.1:${port}`, bodies, open }
}

/** A TestClock that runs `before` each wait, ahead of the wait itself. */
class HookedClock extends TestClock {
  constructor(before: () => unknown) {
    super()
    const wait = this.sleep
    this.sleep = async (ms, signal) => {
      await before()
      await wait(ms, signal)
    }
  }
}

const LIMITS = { attemptTimeoutMs: 5_000, totalMs: 600_000 }
const get = (url: string) => ({ method: 'GET' as const, url, headers: {} })
const STATS_BODY = '{"command_count":14}'
const statsPatch = (url: string) => ({
  method: 'PATCH' as const,
  url: `${url}/bots/123456789012345678/stats`,
  headers: { 'Content-Type': 'application/json' },
  body: STATS_BODY
})
/** The backoffs of a policy with a base of 500 ms before tries 2 and 3, on a TestClock (random() at 0.5: three quarters of base · 2^(n-1)). */
const BACKOFFS = [375, 750]

/** The failure `promise` ends with. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const error: unknown = await promise.then(() => undefined).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(Error)
  return error as Error
}

/** setTimeout and clearTimeout on a fake clock until the test ends: the transport's deadline and realClock's waits fire when the test moves it on. */
function fakeTimers(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  afterTest(() => vi.useRealTimers())
}

/** A turn of the event loop (setImmediate is never faked). */
const turn = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

describe('retries, as the policy says', () => {
  it.each([
    ['random() at 0: half of base · 2^(n-1)', 0, {}, [250, 500]],
    ['random() at 1: all of it', 1, {}, [500, 1_000]],
    ['capped at the policy’s largest delay', 1, { attempts: 5, baseDelayMs: 1_000, maxDelayMs: 3_000 }, [1_000, 2_000, 3_000, 3_000]]
  ])('a 5xx is tried the policy’s attempts, with a backoff between: %s', async (_label, random, more, waits) => {
    const server = await script({ status: 503 })
    const clock = Object.assign(new TestClock(), { random: () => random })
    const policy: Policy = { ...RECORD, ...more }
    expect((await new Requests(LIMITS, clock).send(get(server.url), policy)).status).toBe(503)
    expect(server.bodies).toHaveLength(policy.attempts)
    expect(clock.waits).toEqual(waits)
  })

  it.each([
    ['up to the policy’s longest is waited, then the request tried again', KEY_CHECK.maxRetryAfterMs, 200, [KEY_CHECK.maxRetryAfterMs], 2],
    ['longer than the policy allows ends the retries with the answer, unwaited', KEY_CHECK.maxRetryAfterMs + 1_000, 503, [], 1]
  ])('a wait the server asks for %s', async (_label, askedMs, status, waits, sent) => {
    const server = await script({ status: 503, headers: { 'Retry-After': String(askedMs / 1000) } }, { status: 200 })
    const clock = new TestClock()
    expect((await new Requests(LIMITS, clock).send(get(server.url), KEY_CHECK)).status).toBe(status)
    expect(server.bodies).toHaveLength(sent)
    expect(clock.waits).toEqual(waits)
  })

  const dropped =
    (...then: Reply[]) =>
    async () => ({ ...(await script('drop', ...then)), clock: new TestClock() })
  /** Connections refused; with `opens`, the server comes up during the wait before the second try. */
  const refused = (opens: boolean) => async () => {
    const server = await notYetListening()
    return { ...server, clock: opens ? new HookedClock(server.open) : new TestClock() }
  }
  const unparsable = async () => ({ url: 'http://127.0.0.1:99999', bodies: [], clock: new TestClock() })
  const [RESET, REFUSED, OK] = [{ code: 'ECONNRESET', delivered: true }, { code: 'ECONNREFUSED', delivered: false }, { status: 200 }]
  it.each([
    ['the stats update, dropped once it may have been read: sent once, never again', dropped(OK), 'stats', RESET, 1, []],
    ['the stats update, refused (nothing reached the server): sent again after a backoff', refused(true), 'stats', OK, 1, [375]],
    ['the stats update, refused twice: its two attempts, then the NetworkError', refused(false), 'stats', REFUSED, 0, [375]],
    ['a read, dropped (retryNetwork any): tried again', dropped(OK), 'read', OK, 2, [375]],
    ['a read, dropped every time: its attempts, then the NetworkError', dropped(), 'read', RESET, 3, BACKOFFS],
    ['not one: a URL the parser refuses (a bug), never retried', unparsable, 'read', expect.any(TypeError), 0, []]
  ] as const)('a network failure: %s', async (_label, setup, kind, outcome, sent, waits) => {
    const { url, bodies, clock } = await setup()
    const requests = new Requests(LIMITS, clock)
    const sending = kind === 'stats' ? requests.send(statsPatch(url), STATS) : requests.send(get(url), RECORD)
    const got = await sending
      .then(answer => ({ status: answer.status }))
      .catch((error: unknown) => (error instanceof NetworkError ? { code: error.code, delivered: error.delivered } : error))
    expect(got).toEqual(outcome)
    expect(bodies, 'the requests the server read').toEqual(Array(sent).fill(kind === 'stats' ? STATS_BODY : ''))
    expect(clock.waits).toEqual(waits)
  })

  const html = (status: number): Reply => ({ status, headers: { 'Content-Type': 'text/html' } })
  const LIMITED = { status: 429, headers: { 'Retry-After': '2' } }
  it.each([
    ['ends the retries with its error: sent once, no wait', [html(429), OK], 'banned by the CDN', [429], []],
    ['is asked only about an answer that would be retried', [LIMITED, html(404)], 404, [429], [2_000]]
  ] as const)('a refusal of the caller’s %s', async (_label, acts, outcome, asked, waits) => {
    const server = await script(...acts)
    const clock = new TestClock()
    const seen: number[] = []
    const refuse = (answer: HttpAnswer): Error | undefined => {
      seen.push(answer.status)
      return String(answer.headers['content-type']).startsWith('text/html') ? new Error('banned by the CDN') : undefined
    }
    const sending = new Requests(LIMITS, clock).send(get(server.url), VOTE, { refuse })
    expect(await sending.then(answer => answer.status).catch((error: Error) => error.message)).toBe(outcome)
    expect(seen).toEqual(asked)
    expect(clock.waits).toEqual(waits)
  })
})

/** A gate that admits every attempt at once with a numbered ticket, and keeps the status each ticket was settled with. */
class RecordingGate implements Gate<number> {
  private issued = 0
  readonly settled: [number, number | undefined][] = []
  acquire = async (): Promise<number> => ++this.issued
  settle(ticket: number, answer: HttpAnswer | undefined): void {
    this.settled.push([ticket, answer?.status])
  }
}

describe('a gate (the vote checks’ pacer)', () => {
  /** `n` of `reply`, then a 200. */
  const then200 = (n: number, reply: Act): Act[] => [...Array<Act>(n).fill(reply), { status: 200 }]
  const [TOO_MANY, UNAVAILABLE] = [{ status: 429, headers: { 'Retry-After': '1' } }, { status: 503 }]
  it.each([
    ['waits out 429s itself: they cost no attempt and no wait of the client’s', true, then200(4, TOO_MANY), 200, 5, []],
    ['ends a run of 429s at the tenth, with that answer', true, then200(12, TOO_MANY), 429, 10, []],
    ['leaves failures to the policy: its attempts, the client’s backoff', true, ['drop', ...then200(2, UNAVAILABLE)], 503, 3, BACKOFFS],
    ['without it, a 429 is a failure: the policy’s attempts, the waits it asks for', false, then200(3, TOO_MANY), 429, 3, [1_000, 1_000]]
  ] as const)('%s', async (_label, gated, acts, status, sent, waits) => {
    const server = await script(...acts)
    const clock = new TestClock()
    const gate = new RecordingGate()
    const answer = await new Requests(LIMITS, clock).send(get(server.url), VOTE, gated ? { gate } : {})
    expect(answer.status).toBe(status)
    expect(server.bodies).toHaveLength(sent)
    expect(clock.waits).toEqual(waits)
    const settled = acts.slice(0, sent).map((act, i) => [i + 1, act === 'drop' ? undefined : act.status])
    expect(gate.settled, 'each attempt admitted, and settled with its answer, or none for a network failure').toEqual(gated ? settled : [])
  })
})

/** What a test asks of the client: a request, a wait, or a check between requests. */
type Ask = (requests: Requests, url: string, gate: Gate<void>) => unknown
const read: Ask = (requests, url) => requests.send(get(url), RECORD)
const update: Ask = (requests, url) => requests.send(statsPatch(url), STATS)
const gated: Ask = (requests, url, gate) => requests.send(get(url), VOTE, { gate })
const wait =
  (ms: number, policy?: Policy): Ask =>
  requests =>
    requests.sleep(ms, policy)
const summary: Ask = requests => requests.throwIfOver('the summary')

describe("the step's deadline (timeout 10 s, request-timeout 30 s)", () => {
  const refusal = (what: string) => ({
    headline: 'out of time (timeout)',
    message: `The step's time limit of 10 s (input 'timeout') leaves no room for ${what}. Raise timeout, or look at the network and the service.`
  })

  it.each([
    ['a wait that ends at the deadline goes', 0, wait(10_000), 'done', 0, [10_000]],
    ['a wait past it, in a request, is refused', 0, wait(10_001, VOTE), refusal('a wait of 11 s during a vote check'), 0, []],
    ['a wait past it, between requests, is refused', 0, wait(10_001), refusal('a wait of 11 s'), 0, []],
    ['a read goes with whatever time is left', 9_999, read, 'done', 1, []],
    ['a read with no time left is refused', 10_000, read, refusal("another attempt during the bot's public record"), 0, []],
    ['the stats update goes with 1 s left (MIN_ATTEMPT_MS), under request-timeout', 9_000, update, 'done', 1, []],
    ['the stats update with less is refused', 9_001, update, refusal('an attempt of at least 1 s during the stats update'), 0, []],
    ['work between requests goes with time left', 9_999, summary, 'done', 0, []],
    ['work between requests with no time left is refused', 10_000, summary, refusal('the summary'), 0, []]
  ] as const)('%s', async (_label, elapsedMs, ask, outcome, sent, waits) => {
    // The transport's deadline on a fake clock: an attempt with 1 ms left is not cut off by a busy machine.
    fakeTimers()
    const server = await script({ status: 200 })
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 10_000 }, clock)
    clock.advance(elapsedMs)
    const got = await Promise.resolve()
      .then(() => ask(requests, server.url, { acquire: async () => undefined, settle: () => undefined }))
      .then(() => 'done')
      .catch((error: unknown) => (error instanceof DeadlineError ? { headline: error.headline, message: error.message } : error))
    const left = { got, sent: server.bodies.length, waits: clock.waits, timers: vi.getTimerCount() }
    expect(left, 'what came of it, and no deadline timer left behind').toEqual({ got: outcome, sent, waits, timers: 0 })
  })

  it('cuts each attempt to the time left: one that cannot finish ends at the deadline, not at request-timeout', async () => {
    fakeTimers()
    let received = false
    const url = `http://127.0.0.1:${await listenForTest(http.createServer(req => req.resume().on('end', () => (received = true))))}`
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 30_000 }, clock)
    clock.advance(29_700)
    let settled = false
    // The stats policy with a floor under the 300 ms left.
    const failing = failure(requests.send(statsPatch(url), { ...STATS, minAttemptMs: 100 })).finally(() => (settled = true))
    while (!received) await turn()
    vi.advanceTimersByTime(299)
    await turn()
    expect(settled, 'not cut off before the 300 ms left').toBe(false)
    vi.advanceTimersByTime(1)
    expect(await failing).toMatchObject({ code: 'ETIMEDOUT', delivered: true })
  })
})

describe('a stop', () => {
  const HEAD = 'HTTP/1.1 429 Too Many Requests\r\nContent-Length: 9\r\n\r\n{"a'
  it.each([
    ['while its connection is still being made (TLS): it never left', 'https', '', { inFlight: false, answeredStatus: undefined }],
    ['once it was sent: the server may have read it', 'http', '', { inFlight: true, answeredStatus: undefined }],
    ['once the status line came: sent and answered', 'http', HEAD, { inFlight: true, answeredStatus: 429 }]
  ] as const)('cuts off the request %s', async (_label, scheme, head, expected) => {
    const stop = new AbortController()
    const abort = (): void => stop.abort(new StoppedError('SIGTERM'))
    // A server that never ends an exchange: it answers the client's first bytes (a TLS hello, or the request) with `head` at most.
    const port = await listenForTest(
      net.createServer(socket => {
        socket.on('error', () => undefined)
        socket.once('data', () => (head === '' ? abort() : socket.write(head)))
      })
    )
    // With a head, the stop comes once the client has its status line.
    const onHead = (message: unknown): void => {
      if ((message as { request: http.ClientRequest }).request.getHeader('host') === `127.0.0.1:${port}`) abort()
    }
    subscribe('http.client.response.finish', onHead)
    afterTest(() => unsubscribe('http.client.response.finish', onHead))
    const requests = new Requests(LIMITS, new TestClock(), stop.signal)
    const error = await failure(requests.send({ ...statsPatch(`${scheme}://127.0.0.1:${port}`), headers: {} }, STATS))
    expect(error).toBeInstanceOf(StoppedError)
    expect(error).toMatchObject({ signal: 'SIGTERM', ...expected })
  })

  it.each([
    ['a run already stopped sends nothing', 'before', update, []],
    ['a run already stopped waits no more', 'before', wait(1_000), []],
    ['a run already stopped does no more work', 'before', summary, []],
    ['a stop during a wait ends it', 'in the wait', wait(1_000), [1_000]],
    ['a stop while the gate holds the attempt: nothing sent', 'in the gate', gated, []]
  ] as const)('%s: the StoppedError says nothing was in flight', async (_label, when, ask, waits) => {
    const server = await script({ status: 200 })
    const stop = new AbortController()
    // A stop's reason is the StoppedError the run gives it, or anything else, read as the signal's name.
    if (when === 'before') stop.abort('SIGINT')
    const clock = when === 'in the wait' ? new HookedClock(() => stop.abort(new StoppedError('SIGINT'))) : new TestClock()
    const gate: Gate<void> = { acquire: async () => stop.abort(new StoppedError('SIGINT')), settle: () => undefined }
    const error = await failure(Promise.resolve().then(() => ask(new Requests(LIMITS, clock, stop.signal), server.url, gate)))
    expect(error).toBeInstanceOf(StoppedError)
    expect(error).toMatchObject({ signal: 'SIGINT', inFlight: false, answeredStatus: undefined })
    expect(error.message).toBe('The step was stopped by SIGINT (a cancelled workflow or a time limit).')
    expect(server.bodies).toEqual([])
    expect(clock.waits).toEqual(waits)
  })

  it.each([
    ['without a signal, ends when its time has passed', 'none'],
    ['ends when its time has passed', 'never'],
    ['ends at once when the run is stopped during it', 'during'],
    ['ends at once when the run was stopped before it', 'before']
  ] as const)('realClock.sleep %s, and leaves no timer or listener behind', async (_label, stop) => {
    fakeTimers()
    const run = new AbortController()
    if (stop === 'before') run.abort()
    let ended = false
    const wait = realClock.sleep(1_000, stop === 'none' ? undefined : run.signal).then(() => (ended = true))
    if (stop === 'during') run.abort()
    if (stop === 'none' || stop === 'never') {
      vi.advanceTimersByTime(999)
      await turn()
      expect(ended, 'not before its time').toBe(false)
      vi.advanceTimersByTime(1)
    }
    await turn()
    expect(ended).toBe(true)
    await wait
    expect(vi.getTimerCount(), 'no timer left to hold the process').toBe(0)
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0)
  })
})

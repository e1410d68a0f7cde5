/**
 * The request helper (src/http/client.ts): retries as each caller's policy says, under the step's
 * deadline and the run's stop signal; against loopback servers, on a clock the test controls.
 */
import { getEventListeners } from 'node:events'
import * as http from 'node:http'
import * as net from 'node:net'
import { text } from 'node:stream/consumers'
import { describe, expect, it, vi } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import {
  DeadlineError,
  type Gate,
  type Policy,
  Requests,
  realClock
} from '../../src/http/client.js'
import { type HttpAnswer, NetworkError } from '../../src/http/transport.js'
import { KEY_CHECK_POLICY as KEY_CHECK } from '../../src/keys.js'
import { RECORD_POLICY as RECORD } from '../../src/stats/record.js'
import { STATS_POLICY as STATS } from '../../src/stats/update.js'
import { VOTE_POLICY as VOTE } from '../../src/votes/check.js'
import { TestClock } from '../support/inprocess.js'
import { afterTest, listenForTest } from '../support/teardown.js'

type Reply = { status: number; headers?: Record<string, string> }
/**
 * What the server does with a request it read: answers it, closes the connection unanswered, or
 * never answers.
 */
type Act = Reply | 'drop' | 'hang'

/**
 * A server that handles its nth request as `acts[n]` (the last one again after that), keeping each
 * body; it can be closed and opened again.
 */
async function script(...acts: Act[]): Promise<{
  url: string
  bodies: string[]
  open: () => Promise<void>
  close: () => Promise<unknown>
}> {
  const bodies: string[] = []
  const server = http.createServer(async (req, res) => {
    const act = acts[Math.min(bodies.push(await text(req)) - 1, acts.length - 1)]!
    if (act === 'drop') res.socket?.destroy()
    else if (act !== 'hang') res.writeHead(act.status, act.headers).end()
  })
  const port = await listenForTest(server)
  const open = (): Promise<void> =>
    new Promise(resolve =>
      server.listening ? resolve() : server.listen(port, '127.0.0.1', resolve)
    )
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    open,
    close: () => new Promise(resolve => server.close(resolve))
  }
}

const LIMITS = { attemptTimeoutMs: 5_000, totalMs: 600_000 }
const get = (url: string) => ({ method: 'GET' as const, url, headers: {} })
const statsPatch = (url: string) => ({
  method: 'PATCH' as const,
  url: `${url}/bots/1/stats`,
  headers: {},
  body: '{"command_count":14}'
})
/**
 * The backoffs of a policy with a base of 500 ms before tries 2 and 3, on a TestClock (random() at
 * 0.5: three quarters of base · 2^(n-1)).
 */
const BACKOFFS = [375, 750]

/** The failure `promise` ends with. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const error: unknown = await promise.then(() => undefined).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(Error)
  return error as Error
}

/**
 * setTimeout and clearTimeout on a fake clock until the test ends: the transport's deadline and
 * realClock's waits fire when the test moves it on.
 */
function fakeTimers(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  afterTest(() => vi.useRealTimers())
}

/** A turn of the event loop (setImmediate is never faked). */
const turn = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

describe('retries, as the policy says', () => {
  const [OK, UNAVAILABLE, TOO_MANY] = [
    { status: 200 },
    { status: 503 },
    { status: 429, headers: { 'Retry-After': '1' } }
  ]
  const asks = (ms: number): Reply => ({
    status: 503,
    headers: { 'Retry-After': String(ms / 1000) }
  })
  const html = (status: number): Reply => ({ status, headers: { 'Content-Type': 'text/html' } })
  /** `n` of `reply`, then a 200. */
  const then200 = (n: number, reply: Act): Act[] => [...Array<Act>(n).fill(reply), OK]
  const [CAPPED, LONGEST] = [
    { ...RECORD, attempts: 5, baseDelayMs: 1_000, maxDelayMs: 3_000 },
    // The longest Retry-After the key check waits: 5 s, for a run that sends nothing.
    5_000
  ]
  /** The caller's refusal: an HTML answer (a CDN's ban page) ends the retries with its error. */
  const refuse = (answer: HttpAnswer): Error | undefined =>
    String(answer.headers['content-type']).startsWith('text/html')
      ? new Error('banned by the CDN')
      : undefined
  const [R0, R1, GATED, REFUSING] = [{ random: 0 }, { random: 1 }, { gate: true }, { refuse }]
  /**
   * Connections refused: the server stays closed, or comes up during the wait before the second
   * try.
   */
  const [CLOSED, OPENS] = [{ closed: 'stays' }, { closed: 'opens' }]

  it.each([
    {
      label: 'a 5xx, tried the policy’s attempts, random() at 0: half of base · 2^(n-1)',
      acts: [UNAVAILABLE],
      policy: RECORD,
      options: R0,
      outcome: 503,
      sent: 3,
      waits: [250, 500]
    },
    {
      label: 'random() at 1: all of it',
      acts: [UNAVAILABLE],
      policy: RECORD,
      options: R1,
      outcome: 503,
      sent: 3,
      waits: [500, 1_000]
    },
    {
      label: 'capped at the policy’s largest delay',
      acts: [UNAVAILABLE],
      policy: CAPPED,
      options: R1,
      outcome: 503,
      sent: 5,
      waits: [1_000, 2_000, 3_000, 3_000]
    },
    {
      label: 'a Retry-After up to the policy’s longest is waited',
      acts: [asks(LONGEST), OK],
      policy: KEY_CHECK,
      options: {},
      outcome: 200,
      sent: 2,
      waits: [LONGEST]
    },
    {
      label: 'a longer one ends the retries with the answer, unwaited',
      acts: [asks(LONGEST + 1_000)],
      policy: KEY_CHECK,
      options: {},
      outcome: 503,
      sent: 1,
      waits: []
    },
    {
      label: 'a refusal of the caller’s ends the retries with its error',
      acts: [html(429), OK],
      policy: VOTE,
      options: REFUSING,
      outcome: 'banned by the CDN',
      sent: 1,
      waits: []
    },
    {
      label: 'a refusal is asked only about an answer that would be retried',
      acts: [TOO_MANY, html(404)],
      policy: VOTE,
      options: REFUSING,
      outcome: 404,
      sent: 2,
      waits: [1_000]
    },
    {
      label: 'a gate waits out 429s itself: no attempt, no wait of the client’s',
      acts: then200(4, TOO_MANY),
      policy: VOTE,
      options: GATED,
      outcome: 200,
      sent: 5,
      waits: []
    },
    {
      label: 'a gate ends a run of 429s at the tenth, with that answer',
      acts: then200(12, TOO_MANY),
      policy: VOTE,
      options: GATED,
      outcome: 429,
      sent: 10,
      waits: []
    },
    {
      label: 'a gate leaves failures to the policy: its attempts and backoff',
      acts: ['drop', ...then200(2, UNAVAILABLE)],
      policy: VOTE,
      options: GATED,
      outcome: 503,
      sent: 3,
      waits: BACKOFFS
    },
    {
      label: 'without a gate, a 429 is a failure: the attempts, the waits it asks for',
      acts: then200(3, TOO_MANY),
      policy: VOTE,
      options: {},
      outcome: 429,
      sent: 3,
      waits: [1e3, 1e3]
    },
    {
      label: 'the stats update, dropped once it may have been read: sent once, never again',
      acts: ['drop', OK],
      policy: STATS,
      options: {},
      outcome: 'ECONNRESET',
      sent: 1,
      waits: []
    },
    {
      label: 'the stats update, refused (nothing reached the server): sent again after a backoff',
      acts: [OK],
      policy: STATS,
      options: OPENS,
      outcome: 200,
      sent: 1,
      waits: [375]
    },
    {
      label: 'the stats update, refused twice: its two attempts, then the NetworkError',
      acts: [OK],
      policy: STATS,
      options: CLOSED,
      outcome: 'ECONNREFUSED',
      sent: 0,
      waits: [375]
    },
    {
      label: 'a read, dropped (retryNetwork any): tried again',
      acts: ['drop', OK],
      policy: RECORD,
      options: {},
      outcome: 200,
      sent: 2,
      waits: [375]
    },
    {
      label: 'a read, dropped every time: its attempts, then the NetworkError',
      acts: ['drop'],
      policy: RECORD,
      options: {},
      outcome: 'ECONNRESET',
      sent: 3,
      waits: BACKOFFS
    },
    {
      label: 'not a network failure: a URL the parser refuses (a bug), never retried',
      acts: [OK],
      policy: RECORD,
      options: { port: 99999 },
      outcome: 'Invalid URL',
      sent: 0,
      waits: []
    }
  ] as const)('$label', async ({ acts, policy, options, outcome, sent, waits }) => {
    const server = await script(...acts)
    if ('closed' in options) await server.close()
    const clock = new TestClock()
    const [wait, released] = [clock.sleep, [] as [number, number | undefined][]]
    // Opens the server ahead of the wait before the second try.
    if ('closed' in options && options.closed === 'opens')
      clock.sleep = async (ms, signal) => server.open().then(() => wait(ms, signal))
    if ('random' in options) clock.random = () => options.random
    /**
     * Admits every attempt at once with a numbered ticket, and keeps the status each was released
     * with.
     */
    const gate: Gate<number> = {
      acquire: async () => released.length + 1,
      release: (ticket, answer) => released.push([ticket, answer?.status])
    }
    const url = 'port' in options ? `http://127.0.0.1:${options.port}` : server.url
    const request = policy === STATS ? statsPatch(url) : get(url)
    const sending = new Requests(LIMITS, clock).send(request, policy, {
      gate: 'gate' in options ? gate : undefined,
      refuse: 'refuse' in options ? options.refuse : undefined
    })
    const got = await sending
      .then(answer => answer.status)
      .catch((error: Error) => (error instanceof NetworkError ? error.code : error.message))
    expect({ got, sent: server.bodies.length, waits: clock.waits }).toEqual({
      got: outcome,
      sent,
      waits
    })
    const admitted = acts
      .slice(0, sent)
      .map((act, i) => [i + 1, typeof act === 'string' ? undefined : act.status])
    expect(
      released,
      'each attempt admitted, and released with its answer, or none for a network failure'
    ).toEqual('gate' in options ? admitted : [])
  })
})

/**
 * What a test asks of the client, whose signal `run` fires: a request, a wait, or a check between
 * requests.
 */
type Ask = (requests: Requests, url: string, run: AbortController) => unknown
const read: Ask = (requests, url) => requests.send(get(url), RECORD)
const update: Ask = (requests, url) => requests.send(statsPatch(url), STATS)
/** A request whose gate holds it until the run is stopped. */
const gated: Ask = (requests, url, run) =>
  requests.send(get(url), VOTE, {
    gate: { acquire: async () => run.abort(new StoppedError('SIGINT')), release: () => undefined }
  })
/**
 * A request whose TLS handshake is under way when the run is stopped: the server takes the hello
 * and never answers it.
 */
const handshake: Ask = async (requests, _, run) => {
  const server = net.createServer(socket =>
    socket.on('error', () => undefined).once('data', () => run.abort(new StoppedError('SIGINT')))
  )
  return requests.send(statsPatch(`https://127.0.0.1:${await listenForTest(server)}`), STATS)
}
/**
 * `ask` in a run already stopped (a stop's reason is the StoppedError the run gives it, or anything
 * else, read as the signal's name).
 */
const stopped =
  (ask: Ask): Ask =>
  (requests, url, run) => {
    run.abort('SIGINT')
    return ask(requests, url, run)
  }
const wait =
  (ms: number, policy?: Policy): Ask =>
  requests =>
    requests.sleep(ms, policy)
const summary: Ask = requests => requests.throwIfOver('the summary')

describe("the step's deadline (timeout 10 s, request-timeout 30 s) and a stop", () => {
  const refusal = (what: string) => ({
    headline: 'out of time (timeout)',
    message: `The step's time limit of 10 s (input 'timeout') leaves no room for ${what}. Raise timeout, or look at the network and the service.`
  })
  /** Stopped by SIGINT, nothing in flight. */
  const STOPPED = { stopped: 'SIGINT', inFlight: false, answeredStatus: undefined }

  it.each([
    {
      label: 'a wait that ends at the deadline goes',
      elapsedMs: 0,
      ask: wait(10_000),
      outcome: 'done',
      sent: 0,
      waits: [10_000]
    },
    {
      label: 'a wait past it, in a request, is refused',
      elapsedMs: 0,
      ask: wait(10_001, VOTE),
      outcome: refusal('a wait of 11 s during a vote check'),
      sent: 0,
      waits: []
    },
    {
      label: 'a wait past it, between requests, is refused',
      elapsedMs: 0,
      ask: wait(10_001),
      outcome: refusal('a wait of 11 s'),
      sent: 0,
      waits: []
    },
    {
      label: 'a read goes with whatever time is left',
      elapsedMs: 9_999,
      ask: read,
      outcome: 'done',
      sent: 1,
      waits: []
    },
    {
      label: 'a read with no time left is refused',
      elapsedMs: 1e4,
      ask: read,
      outcome: refusal("another attempt during the bot's public record"),
      sent: 0,
      waits: []
    },
    {
      label: 'the stats update goes with 1 s left (MIN_ATTEMPT_MS), under request-timeout',
      elapsedMs: 9_000,
      ask: update,
      outcome: 'done',
      sent: 1,
      waits: []
    },
    {
      label: 'the stats update with less is refused',
      elapsedMs: 9_001,
      ask: update,
      outcome: refusal('an attempt of at least 1 s during the stats update'),
      sent: 0,
      waits: []
    },
    {
      label: 'work between requests goes with time left',
      elapsedMs: 9_999,
      ask: summary,
      outcome: 'done',
      sent: 0,
      waits: []
    },
    {
      label: 'work between requests with no time left is refused',
      elapsedMs: 10_000,
      ask: summary,
      outcome: refusal('the summary'),
      sent: 0,
      waits: []
    },
    {
      label: 'a run already stopped waits no more',
      elapsedMs: 0,
      ask: stopped(wait(1_000)),
      outcome: STOPPED,
      sent: 0,
      waits: []
    },
    {
      label: 'a run already stopped does no more work',
      elapsedMs: 0,
      ask: stopped(summary),
      outcome: STOPPED,
      sent: 0,
      waits: []
    },
    {
      label: 'a stop while the gate holds the attempt: nothing sent',
      elapsedMs: 0,
      ask: gated,
      outcome: STOPPED,
      sent: 0,
      waits: []
    },
    {
      label: 'a stop while the connection is being made (TLS): nothing in flight',
      elapsedMs: 0,
      ask: handshake,
      outcome: STOPPED,
      sent: 0,
      waits: []
    }
  ] as const)('$label', async ({ elapsedMs, ask, outcome, sent, waits }) => {
    // The transport's deadline on a fake clock: an attempt with 1 ms left is not cut off by a busy
    // machine.
    fakeTimers()
    const server = await script({ status: 200 })
    const [clock, run] = [new TestClock(), new AbortController()]
    const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 10_000 }, clock, run.signal)
    clock.advance(elapsedMs)
    const got = await Promise.resolve()
      .then(() => ask(requests, server.url, run))
      .then(() => 'done')
      .catch((error: unknown) => {
        if (error instanceof DeadlineError)
          return { headline: error.headline, message: error.message }
        return error instanceof StoppedError
          ? {
              stopped: error.signal,
              inFlight: error.inFlight,
              answeredStatus: error.answeredStatus
            }
          : error
      })
    const left = { got, sent: server.bodies.length, waits: clock.waits, timers: vi.getTimerCount() }
    expect(left, 'what came of it, and no deadline timer left behind').toEqual({
      got: outcome,
      sent,
      waits,
      timers: 0
    })
  })

  it('cuts each attempt to the time left: one that cannot finish ends at the deadline, not at request-timeout', async () => {
    fakeTimers()
    const server = await script('hang')
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 30_000 }, clock)
    clock.advance(29_700)
    let settled = false
    // The stats policy with a floor under the 300 ms left.
    const failing = failure(
      requests.send(statsPatch(server.url), { ...STATS, minAttemptMs: 100 })
    ).finally(() => (settled = true))
    while (server.bodies.length === 0) await turn()
    vi.advanceTimersByTime(299)
    await turn()
    expect(settled, 'not cut off before the 300 ms left').toBe(false)
    vi.advanceTimersByTime(1)
    expect(await failing).toMatchObject({ code: 'ETIMEDOUT', delivered: true })
  })
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
  const waiting = realClock
    .sleep(1_000, stop === 'none' ? undefined : run.signal)
    .then(() => (ended = true))
  if (stop === 'during') run.abort()
  if (stop === 'none' || stop === 'never') {
    vi.advanceTimersByTime(999)
    await turn()
    expect(ended, 'not before its time').toBe(false)
    vi.advanceTimersByTime(1)
  }
  await turn()
  expect(ended).toBe(true)
  await waiting
  expect(vi.getTimerCount(), 'no timer left to hold the process').toBe(0)
  expect(getEventListeners(run.signal, 'abort')).toHaveLength(0)
})

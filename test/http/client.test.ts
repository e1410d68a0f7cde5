/**
 * The request helper (src/http/client.ts): every request goes through it, under the step's
 * deadline and the run's stop signal, retried as its policy says. Against a loopback server that
 * answers as each test needs, on a clock the test controls (a wait moves it on at once).
 */
import { getEventListeners } from 'node:events'
import * as http from 'node:http'
import * as net from 'node:net'
import { describe, expect, it } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { DeadlineError, type Gate, MIN_ATTEMPT_MS, type Policy, Requests, realClock } from '../../src/http/client.js'
import { KEY_CHECK_POLICY } from '../../src/keys.js'
import { RECORD_POLICY } from '../../src/stats/record.js'
import { STATS_POLICY } from '../../src/stats/update.js'
import { VOTE_POLICY } from '../../src/votes/check.js'

/** Each caller's own policy, as the client receives it (the client names no caller). */
const POLICIES = { record: RECORD_POLICY, stats: STATS_POLICY, keyCheck: KEY_CHECK_POLICY, vote: VOTE_POLICY } as const
import { type HttpAnswer, NetworkError } from '../../src/http/transport.js'
import { TestClock } from '../support/inprocess.js'
import { listenForTest } from '../support/server.js'
import { afterTest } from '../support/teardown.js'

type Reply = { status: number; headers?: Record<string, string>; body?: string }

/** A server that answers the nth request with `replies[n]` (the last one again after that), and counts them. */
async function serve(...replies: Reply[]): Promise<{ url: string; count: () => number }> {
  let count = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const reply = replies[Math.min(count, replies.length - 1)]!
      count += 1
      res.writeHead(reply.status, reply.headers).end(reply.body ?? '')
    })
  })
  return { url: `http://127.0.0.1:${await listenForTest(server)}`, count: () => count }
}

/** A server that reads every request and never answers it. */
async function silentHttp(): Promise<string> {
  const server = http.createServer(req => req.resume())
  return `http://127.0.0.1:${await listenForTest(server)}`
}

/** A clock whose random() is fixed, to read the backoff's bounds. */
class RandomClock extends TestClock {
  constructor(private readonly fixed: number) {
    super()
  }
  override random = (): number => this.fixed
}

const get = (url: string): { method: 'GET'; url: string; headers: Record<string, string> } => ({ method: 'GET', url, headers: {} })

/** The failure `promise` ends with. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(Error)
  return error as Error
}

describe('backoff', () => {
  it.each([
    ['random() at 0: half of base · 2^(n-1)', 0, 0.5],
    ['random() at 1: all of base · 2^(n-1)', 1, 1]
  ])('between tries of a 5xx, with %s', async (_, random, share) => {
    const server = await serve({ status: 503 })
    const clock = new RandomClock(random)
    const requests = new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock)
    const answer = await requests.send(get(server.url), POLICIES.record)
    expect(answer.status).toBe(503)
    expect(server.count()).toBe(POLICIES.record.attempts)
    const base = POLICIES.record.baseDelayMs
    expect(clock.waits).toEqual([share * base, share * base * 2])
  })

  it('is capped at the policy’s largest delay', async () => {
    const server = await serve({ status: 503 })
    const clock = new RandomClock(1)
    const policy: Policy = { ...POLICIES.record, attempts: 5, baseDelayMs: 1_000, maxDelayMs: 3_000 }
    await new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(get(server.url), policy)
    expect(clock.waits).toEqual([1_000, 2_000, 3_000, 3_000])
  })
})

describe('a wait the server asks for', () => {
  const longest = POLICIES.keyCheck.maxRetryAfterMs

  it('is waited, up to the policy’s longest', async () => {
    const server = await serve({ status: 503, headers: { 'Retry-After': String(longest / 1000) } }, { status: 200 })
    const clock = new TestClock()
    const answer = await new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(get(server.url), POLICIES.keyCheck)
    expect(answer.status).toBe(200)
    expect(clock.waits).toEqual([longest])
  })

  it('longer than the policy allows ends the retries with the answer, without waiting', async () => {
    const server = await serve({ status: 503, headers: { 'Retry-After': String(longest / 1000 + 1) } }, { status: 200 })
    const clock = new TestClock()
    const answer = await new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(get(server.url), POLICIES.keyCheck)
    expect(answer.status).toBe(503)
    expect(server.count()).toBe(1)
    expect(clock.waits).toEqual([])
  })
})

describe("the step's deadline", () => {
  it('allows a wait that ends exactly at the deadline, and refuses a longer one, naming it and the request', async () => {
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 1_000, totalMs: 10_000 }, clock)
    await requests.sleep(10_000)
    expect(clock.waits).toEqual([10_000])
    const late = new Requests({ attemptTimeoutMs: 1_000, totalMs: 10_000 }, clock)
    const error = await failure(late.sleep(10_001, POLICIES.vote))
    expect(error).toBeInstanceOf(DeadlineError)
    expect(error.message).toBe(
      "The step's time limit of 10 s (input 'timeout') leaves no room for a wait of 11 s during a vote check. " +
        'Raise timeout, or look at the network and the service.'
    )
    expect((await failure(late.sleep(10_001))).message).toBe(
      "The step's time limit of 10 s (input 'timeout') leaves no room for a wait of 11 s. Raise timeout, or look at the network and the service."
    )
    expect(clock.waits).toEqual([10_000])
  })

  it('sends nothing once no time is left', async () => {
    const server = await serve({ status: 200 })
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 1_000, totalMs: 10_000 }, clock)
    clock.advance(10_000)
    const error = await failure(requests.send(get(server.url), POLICIES.record))
    expect(error).toBeInstanceOf(DeadlineError)
    expect(error.message).toBe(
      "The step's time limit of 10 s (input 'timeout') leaves no room for another attempt during the bot's public record. " +
        'Raise timeout, or look at the network and the service.'
    )
    expect(server.count()).toBe(0)
  })

  const patch = (url: string) => ({ ...get(url), method: 'PATCH' as const, body: '{}' })

  it('sends the stats update with the time left when that is under request-timeout (timeout 20 s, request-timeout 30 s)', async () => {
    const server = await serve({ status: 200 })
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 20_000 }, clock)
    expect((await requests.send(patch(server.url), POLICIES.stats)).status).toBe(200)
    // timeout at request-timeout (both 30 s), with the few ms the record read took gone.
    const cut = new Requests({ attemptTimeoutMs: 30_000, totalMs: 30_000 }, clock)
    clock.advance(50)
    expect((await cut.send(patch(server.url), POLICIES.stats)).status, 'sent with 29.95 s left of a 30 s attempt').toBe(200)
    expect(server.count()).toBe(2)
  })

  it('refuses the stats update only with less than 1 s left (MIN_ATTEMPT_MS), the least a real attempt can use', async () => {
    expect(POLICIES.stats.minAttemptMs).toBe(MIN_ATTEMPT_MS)
    expect(MIN_ATTEMPT_MS).toBe(1_000)
    const server = await serve({ status: 200 })
    const clock = new TestClock()
    const short = new Requests({ attemptTimeoutMs: 30_000, totalMs: 30_000 }, clock)
    clock.advance(30_000 - MIN_ATTEMPT_MS + 1)
    const error = await failure(short.send(patch(server.url), POLICIES.stats))
    expect(error).toBeInstanceOf(DeadlineError)
    expect(error.message).toBe(
      "The step's time limit of 30 s (input 'timeout') leaves no room for an attempt of at least 1 s during the stats update. " +
        'Raise timeout, or look at the network and the service.'
    )
    expect((error as DeadlineError).headline, "the failed run's headline").toBe('out of time (timeout)')
    expect(server.count()).toBe(0)
    const enough = new Requests({ attemptTimeoutMs: 30_000, totalMs: 30_000 }, clock)
    clock.advance(30_000 - MIN_ATTEMPT_MS)
    expect((await enough.send(patch(server.url), POLICIES.stats)).status, `sent with exactly ${MIN_ATTEMPT_MS} ms left`).toBe(200)
    expect(server.count()).toBe(1)
  })

  it('cuts each attempt to the time left: a request that cannot finish ends at the deadline', async () => {
    const url = await silentHttp()
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 30_000 }, clock)
    clock.advance(29_700)
    const started = performance.now()
    // The stats policy with a floor under the 300 ms left, so that the cut is seen in a test's time.
    const error = await failure(requests.send(patch(url), { ...POLICIES.stats, minAttemptMs: 100 }))
    const ms = performance.now() - started
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.message, 'the attempt was given the 300 ms left, not request-timeout').toBe(
      `no complete answer from ${new URL(url).host} within 0.3 s`
    )
    expect(ms).toBeGreaterThanOrEqual(250)
    expect(ms).toBeLessThan(1_500)
  })

  it('a read goes with whatever time is left', async () => {
    const server = await serve({ status: 200 })
    const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 1_000 }, new TestClock())
    expect((await requests.send(get(server.url), POLICIES.record)).status).toBe(200)
  })
})

describe('failures that are not network failures', () => {
  it('are not retried', async () => {
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 1_000, totalMs: 60_000 }, clock)
    // An address the URL parser refuses: a bug, not a network failure.
    const error = await failure(requests.send(get('http://127.0.0.1:99999/'), POLICIES.record))
    expect(error).toBeInstanceOf(TypeError)
    expect(clock.waits).toEqual([])
  })
})

describe('realClock.sleep', () => {
  it('without a signal, waits and leaves nothing behind', async () => {
    const started = Date.now()
    await realClock.sleep(20)
    expect(Date.now() - started).toBeGreaterThanOrEqual(15)
  })

  it('with a signal already aborted, ends at once', async () => {
    const stop = new AbortController()
    stop.abort()
    const ended = await Promise.race([
      realClock.sleep(60_000, stop.signal).then(() => 'ended'),
      new Promise(resolve => setTimeout(() => resolve('still waiting'), 500))
    ])
    expect(ended).toBe('ended')
  })

  it('leaves no listener on the run’s signal once it has ended', async () => {
    const run = new AbortController()
    for (let i = 0; i < 3; i++) await realClock.sleep(1, run.signal)
    expect(getEventListeners(run.signal, 'abort')).toEqual([])
  })
})

describe('a stop cuts off the request', () => {
  /**
   * A TCP server that accepts connections and never writes a byte (a TLS handshake with it never
   * ends), and calls `received` when the first bytes of a connection arrive: a TLS ClientHello,
   * or a plain request.
   */
  function silent(received: () => void): Promise<number> {
    return listenForTest(
      net.createServer(socket => {
        socket.on('error', () => undefined)
        socket.once('data', received)
      })
    )
  }

  it.each([
    ['while its connection is still being made (TLS): not in flight, it never left', 'https', false],
    ['once it was sent: in flight, the server may have read it', 'http', true]
  ] as const)('%s', async (_, scheme, inFlight) => {
    const stop = new AbortController()
    // The stop comes once the server has the client's first bytes: its TLS hello (which it never
    // answers), or the request itself.
    const port = await silent(() => stop.abort(new StoppedError('SIGTERM')))
    const requests = new Requests({ attemptTimeoutMs: 5_000, totalMs: 60_000 }, new TestClock(), stop.signal)
    const error = await failure(
      requests.send({ method: 'PATCH', url: `${scheme}://127.0.0.1:${port}/bots/1/stats`, headers: {}, body: '{}' }, POLICIES.stats)
    )
    expect(error).toBeInstanceOf(StoppedError)
    expect((error as StoppedError).inFlight).toBe(inFlight)
  })
})

/** What the server does with the nth request: answers it, or reads it whole and closes the connection unanswered. */
type Act = Reply | 'drop'

/** A server that handles the nth request as `acts[n]` (the last one again after that), and keeps the body of each request it read. */
async function script(...acts: Act[]): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const act = acts[Math.min(bodies.length, acts.length - 1)]!
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      if (act === 'drop') res.socket?.destroy()
      else res.writeHead(act.status, act.headers).end(act.body ?? '')
    })
  })
  return { url: `http://127.0.0.1:${await listenForTest(server)}`, bodies }
}

/** A server on a port nothing listens on yet: `open()` starts it there. It keeps the body of each request it read, and answers 200. */
async function notYetListening(): Promise<{ url: string; bodies: string[]; open: () => Promise<void> }> {
  const bodies: string[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      res.end('{"success":true}')
    })
  })
  const port = await listenForTest(server)
  await new Promise(resolve => server.close(resolve))
  const open = async (): Promise<void> => {
    if (!server.listening) await new Promise<void>(resolve => server.listen(port, '127.0.0.1', () => resolve()))
  }
  afterTest(() => new Promise(resolve => server.close(resolve)))
  return { url: `http://127.0.0.1:${port}`, bodies, open }
}

/** A TestClock that runs `before` each wait, ahead of the wait itself. */
class HookedClock extends TestClock {
  constructor(before: () => Promise<void>) {
    super()
    const wait = this.sleep
    this.sleep = async (ms, signal) => {
      await before()
      await wait(ms, signal)
    }
  }
}

const statsPatch = (url: string) => ({
  method: 'PATCH' as const,
  url: `${url}/bots/123456789012345678/stats`,
  headers: { 'Content-Type': 'application/json' },
  body: '{"command_count":14}'
})

/** The backoffs of a policy with a base of 500 ms before tries 2 and 3, on a TestClock (random() at 0.5: three quarters of base · 2^(n-1)). */
const BACKOFFS = [375, 750]

describe('network failures, retried as the policy says', () => {
  it('never sends the stats update again once it may have been read: one PATCH, its NetworkError, no wait', async () => {
    const server = await script('drop', { status: 200 })
    const clock = new TestClock()
    const error = await failure(
      new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(statsPatch(server.url), POLICIES.stats)
    )
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).delivered, 'the connection closed after the PATCH went out').toBe(true)
    expect(server.bodies, 'the PATCH reached the service once, and was not sent again').toEqual(['{"command_count":14}'])
    expect(clock.waits).toEqual([])
  })

  it('sends the stats update again when nothing reached the server (the connection was refused), after a backoff', async () => {
    const server = await notYetListening()
    // The service comes up during the wait before the second try.
    const clock = new HookedClock(server.open)
    const answer = await new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(statsPatch(server.url), POLICIES.stats)
    expect(answer.status).toBe(200)
    expect(server.bodies, 'the PATCH the second try sent, the only one the service read').toEqual(['{"command_count":14}'])
    expect(clock.waits).toEqual(BACKOFFS.slice(0, 1))
  })

  it('tries an undelivered stats update twice at most, and ends with the last NetworkError', async () => {
    const server = await notYetListening()
    const clock = new TestClock()
    const error = await failure(
      new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(statsPatch(server.url), POLICIES.stats)
    )
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).code).toBe('ECONNREFUSED')
    expect(POLICIES.stats.attempts).toBe(2)
    expect(clock.waits, 'one wait: between the two tries').toEqual(BACKOFFS.slice(0, 1))
  })

  it('retries a read whose connection dropped (retryNetwork any), and returns the answer that came', async () => {
    const server = await script('drop', { status: 200, body: '{"id":"1"}' })
    const clock = new TestClock()
    const answer = await new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(get(server.url), POLICIES.record)
    expect(answer.json).toEqual({ id: '1' })
    expect(server.bodies).toHaveLength(2)
    expect(clock.waits).toEqual(BACKOFFS.slice(0, 1))
  })

  it('gives up a read after its attempts, with a backoff between each, and throws the last NetworkError', async () => {
    const server = await script('drop')
    const clock = new TestClock()
    const error = await failure(new Requests({ attemptTimeoutMs: 5_000, totalMs: 600_000 }, clock).send(get(server.url), POLICIES.record))
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.message).toBe(`the connection to ${new URL(server.url).host} failed (ECONNRESET)`)
    expect(server.bodies, `${POLICIES.record.attempts} tries`).toHaveLength(POLICIES.record.attempts)
    expect(clock.waits).toEqual(BACKOFFS)
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
  const limits = { attemptTimeoutMs: 5_000, totalMs: 600_000 }
  const tooMany: Reply = { status: 429, headers: { 'Retry-After': '1' } }

  it('admits each attempt and is told how it ended: its answer, or none for a network failure', async () => {
    const server = await script('drop', { status: 503 }, { status: 200 })
    const gate = new RecordingGate()
    const answer = await new Requests(limits, new TestClock()).send(get(server.url), POLICIES.vote, { gate })
    expect(answer.status).toBe(200)
    expect(gate.settled).toEqual([
      [1, undefined],
      [2, 503],
      [3, 200]
    ])
  })

  it('waits out 429s itself: they cost no attempt and no wait of the client’s', async () => {
    const server = await script(tooMany, tooMany, tooMany, tooMany, { status: 200 })
    const clock = new TestClock()
    const gate = new RecordingGate()
    const answer = await new Requests(limits, clock).send(get(server.url), POLICIES.vote, { gate })
    expect(answer.status).toBe(200)
    expect(server.bodies, `five tries, more than the policy's ${POLICIES.vote.attempts}`).toHaveLength(5)
    expect(clock.waits, 'the gate waits, not the client').toEqual([])
  })

  it('ends a run of 429s at the tenth, with that answer', async () => {
    // A 200 after a dozen 429s: a client that went on past the tenth would end with it.
    const server = await script(...Array<Reply>(12).fill(tooMany), { status: 200 })
    const clock = new TestClock()
    const gate = new RecordingGate()
    const answer = await new Requests(limits, clock).send(get(server.url), POLICIES.vote, { gate })
    expect(answer.status).toBe(429)
    expect(server.bodies).toHaveLength(10)
    expect(gate.settled.map(([, status]) => status)).toEqual(Array(10).fill(429))
    expect(clock.waits).toEqual([])
  })

  it('retries a 5xx as the policy says: its attempts, with the client’s backoff', async () => {
    const server = await script({ status: 503 }, { status: 503 }, { status: 503 }, { status: 200 })
    const clock = new TestClock()
    const answer = await new Requests(limits, clock).send(get(server.url), POLICIES.vote, { gate: new RecordingGate() })
    expect(answer.status).toBe(503)
    expect(server.bodies).toHaveLength(POLICIES.vote.attempts)
    expect(clock.waits).toEqual(BACKOFFS)
  })

  it('without a gate, a 429 is retried as a failure: the policy’s attempts, after the wait it asks for', async () => {
    const server = await script(tooMany, tooMany, tooMany, { status: 200 })
    const clock = new TestClock()
    const answer = await new Requests(limits, clock).send(get(server.url), POLICIES.vote)
    expect(answer.status).toBe(429)
    expect(server.bodies).toHaveLength(POLICIES.vote.attempts)
    expect(clock.waits).toEqual([1_000, 1_000])
  })

  it('sends nothing when the run is stopped while the gate holds the attempt', async () => {
    const server = await script({ status: 200 })
    const stop = new AbortController()
    const gate: Gate<void> = { acquire: async () => stop.abort(new StoppedError('SIGTERM')), settle: () => undefined }
    const error = await failure(new Requests(limits, new TestClock(), stop.signal).send(get(server.url), POLICIES.vote, { gate }))
    expect(error).toBeInstanceOf(StoppedError)
    expect((error as StoppedError).inFlight, 'stopped before it was sent').toBe(false)
    expect(server.bodies).toEqual([])
  })
})

describe('an answer the caller refuses', () => {
  const limits = { attemptTimeoutMs: 5_000, totalMs: 600_000 }
  const banned: Reply = { status: 429, headers: { 'Content-Type': 'text/html' }, body: '<html>Error 1015</html>' }
  const refuseBan = (answer: HttpAnswer): Error | undefined =>
    String(answer.headers['content-type']).startsWith('text/html') ? new Error('banned by the CDN') : undefined

  it('ends the retries with the caller’s error: sent once, no wait', async () => {
    const server = await script(banned, { status: 200 })
    const clock = new TestClock()
    const error = await failure(new Requests(limits, clock).send(get(server.url), POLICIES.vote, { refuse: refuseBan }))
    expect(error.message).toBe('banned by the CDN')
    expect(server.bodies).toHaveLength(1)
    expect(clock.waits).toEqual([])
  })

  it('is asked only about an answer that would be retried, and one it lets pass is retried', async () => {
    const asked: number[] = []
    const server = await script({ status: 429, headers: { 'Retry-After': '2' } }, { status: 404, headers: { 'Content-Type': 'text/html' } })
    const clock = new TestClock()
    const refuse = (answer: HttpAnswer): Error | undefined => {
      asked.push(answer.status)
      return refuseBan(answer)
    }
    const answer = await new Requests(limits, clock).send(get(server.url), POLICIES.vote, { refuse })
    expect(answer.status, 'a 404 is not retried: it is returned, not refused').toBe(404)
    expect(asked).toEqual([429])
    expect(clock.waits).toEqual([2_000])
  })
})

describe('a run already stopped', () => {
  it('sends nothing, and its StoppedError says nothing was in flight', async () => {
    const server = await script({ status: 200 })
    const requests = new Requests(
      { attemptTimeoutMs: 5_000, totalMs: 600_000 },
      new TestClock(),
      AbortSignal.abort(new StoppedError('SIGINT'))
    )
    const error = await failure(requests.send(statsPatch(server.url), POLICIES.stats))
    expect(error).toBeInstanceOf(StoppedError)
    expect(error.message).toBe('The step was stopped by SIGINT (a cancelled workflow or a time limit).')
    expect((error as StoppedError).inFlight).toBe(false)
    expect((error as StoppedError).answeredStatus).toBeUndefined()
    expect(server.bodies).toEqual([])
  })
})

describe('realClock.sleep, stopped', () => {
  it('ends the wait as soon as the run is stopped', async () => {
    const run = new AbortController()
    let ended = false
    const wait = realClock.sleep(60_000, run.signal).then(() => (ended = true))
    run.abort()
    await new Promise(resolve => setImmediate(resolve))
    expect(ended, 'the stop ended the 60 s wait').toBe(true)
    await wait
    expect(getEventListeners(run.signal, 'abort')).toEqual([])
  })
})

import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { getEventListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import * as http from 'node:http'
import * as https from 'node:https'
import * as net from 'node:net'
import tls from 'node:tls'
import { describe, expect, it, vi } from 'vitest'
import { ForwardProxy } from '../support/proxy.js'
import { KEY } from '../support/inprocess.js'
import { listenForTest } from '../support/server.js'
import { afterTest } from '../support/teardown.js'
import { type HttpAnswer, type HttpRequest, NetworkError, retryAfterMs, send } from '../../src/http/transport.js'

/** A real server on a free loopback port, closed when its test finishes: its address, and the TCP connections it accepted. */
async function serveWith(handler: http.RequestListener): Promise<{ url: string; server: http.Server; connections: () => number }> {
  const server = http.createServer(handler)
  let connections = 0
  server.on('connection', () => (connections += 1))
  return { url: `http://127.0.0.1:${await listenForTest(server)}`, server, connections: () => connections }
}

async function serve(handler: http.RequestListener): Promise<string> {
  return (await serveWith(handler)).url
}

/** A raw TCP server: `answer` writes the bytes of the answer once the request has arrived. */
async function serveRaw(answer: (socket: net.Socket) => void): Promise<string> {
  const server = net.createServer(socket => {
    socket.on('error', () => undefined)
    socket.once('data', () => answer(socket))
  })
  return `http://127.0.0.1:${await listenForTest(server)}`
}

/** Writes each piece as a chunk of its own (a pause between them), then drops the connection. */
function writeApart(socket: net.Socket, pieces: readonly string[]): void {
  const [first, ...rest] = pieces
  if (first === undefined) socket.destroy()
  else socket.write(first, () => setTimeout(() => writeApart(socket, rest), 30))
}

/** Settles with 'gave up' after `ms` of real time (the real setTimeout, which fake timers do not replace): a wait's failure guard. */
const realSetTimeout = globalThis.setTimeout
function guard(ms: number): Promise<'gave up'> {
  return new Promise(resolve => realSetTimeout(() => resolve('gave up'), ms).unref())
}

/** A port that was just open and is now closed: connecting to it is refused. */
async function closedPort(): Promise<string> {
  const server = http.createServer()
  const port = await listenForTest(server)
  await new Promise(resolve => server.close(resolve))
  return `http://127.0.0.1:${port}`
}

/** An https server on 127.0.0.1 with the test certificate (valid for 127.0.0.1 and api.discord.place). */
async function serveTls(handler: http.RequestListener): Promise<{ server: https.Server; url: string; port: number }> {
  const key = readFileSync(new URL('../fixtures/tls/server-key.pem', import.meta.url))
  const server = https.createServer({ key, cert: readFileSync(new URL('../fixtures/tls/server.pem', import.meta.url)) }, handler)
  const port = await listenForTest(server)
  return { server, url: `https://127.0.0.1:${port}`, port }
}

/**
 * Trusts the test CA until the test finishes, as NODE_EXTRA_CA_CERTS does for a run: every TLS
 * connection, direct or through a tunnel, is made with `tls.connect`, which is given the CA.
 */
function trustTestCa(): void {
  const ca = readFileSync(new URL('../fixtures/tls/ca.pem', import.meta.url))
  const connect = tls.connect
  const trusting = vi.spyOn(tls, 'connect').mockImplementation(((...args: unknown[]) => {
    // A copy: the agent files a socket it frees under a name made from the options it was made with.
    const given = args.map(arg => (typeof arg === 'object' && arg !== null ? { ...arg, ca } : arg))
    return (connect as (...given: unknown[]) => tls.TLSSocket)(...given)
  }) as typeof tls.connect)
  afterTest(() => trusting.mockRestore())
}

/** Name lookups of the direct connections fail with `code`, or find `address`, until the test finishes. */
function lookups(result: { code?: string } | { address: string }): void {
  const original = http.Agent.prototype.createConnection
  const spy = vi.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(function (this: http.Agent, options, callback) {
    const lookup: net.LookupFunction = (_host, { all }, done) =>
      process.nextTick(() => {
        if (!('address' in result)) done(Object.assign(new Error('lookup failed'), result), '', 4)
        else if (all === true) done(null, [{ address: result.address, family: 4 }])
        else done(null, result.address, 4)
      })
    return original.call(this, { ...options, lookup } as typeof options, callback)
  })
  afterTest(() => spy.mockRestore())
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function get(url: string, extra: Partial<HttpRequest> = {}): HttpRequest {
  return { method: 'GET', url, headers: { Accept: 'application/json' }, timeoutMs: 5_000, ...extra }
}

const PATCH_BODY = '{"server_count":1}'
const patch = (url: string, extra: Partial<HttpRequest> = {}): HttpRequest =>
  get(url, { method: 'PATCH', headers: { Authorization: KEY }, body: PATCH_BODY, ...extra })

/** The NetworkError a request fails with. */
async function failure(sending: Promise<HttpAnswer>): Promise<NetworkError> {
  const error: unknown = await sending.then(() => undefined).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(NetworkError)
  return error as NetworkError
}

/**
 * A fake clock until the test ends, for the exchanges' deadlines (vitest's setTimeout and
 * clearTimeout; the sockets' own timers are Node's, untouched) or for connections' idle time
 * (Date, which the transport reads it from): a deadline fires, or a connection has idled, when
 * the test moves that clock on, at a known point of the exchange, however slow the machine.
 */
function onTestClock(what: 'deadlines' | 'idle time'): void {
  vi.useFakeTimers({ toFake: what === 'deadlines' ? ['setTimeout', 'clearTimeout'] : ['Date'] })
  afterTest(() => vi.useRealTimers())
}

/** Resolves once `ready()` holds, polled every 5 ms (setInterval is never faked); fails after the guard. */
async function until(ready: () => boolean, what: string): Promise<void> {
  let poll: ReturnType<typeof setInterval> | undefined
  const held = new Promise<'held'>(resolve => (poll = setInterval(() => ready() && resolve('held'), 5)))
  const got = await Promise.race([held, guard(10_000)])
  clearInterval(poll)
  expect(got, what).toBe('held')
}

/** Whether `promise` has settled, read after a turn of the event loop (setImmediate is never faked). */
function watch(promise: Promise<unknown>): () => Promise<boolean> {
  let settled = false
  void promise.then(() => (settled = true)).catch(() => (settled = true))
  return async () => {
    await new Promise(resolve => setImmediate(resolve))
    return settled
  }
}

/** Whether the client has the head of an answer from `url`'s host: Node's channel says so just before the transport's handler runs. */
function headSeen(url: string): () => boolean {
  let seen = false
  const host = new URL(url).host
  const onHead = (message: unknown): void => {
    if ((message as { request: http.ClientRequest }).request.getHeader('host') === host) seen = true
  }
  subscribe('http.client.response.finish', onHead)
  afterTest(() => unsubscribe('http.client.response.finish', onHead))
  return () => seen
}

/** The variables that name a proxy, or hosts to reach without one. */
const names = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'] as const
type ProxyEnv = Partial<Record<(typeof names)[number], string>>

/** A forward proxy with these routes, closed when the test finishes. */
async function proxyFor(map: Record<string, number> = {}): Promise<ForwardProxy> {
  const proxy = await ForwardProxy.start(map)
  afterTest(() => proxy.close())
  return proxy
}

/** Runs `run` with the proxy variables as `env` sets them, and no others. */
async function withProxy<T>(env: ProxyEnv, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(names.map(name => [name, process.env[name]]))
  for (const name of names) delete process.env[name]
  Object.assign(process.env, env)
  try {
    return await run()
  } finally {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
  }
}

/**
 * First in the file on purpose: each protocol's pool is made by its first request, so this one
 * reads the http pool as made. The https tests below run after it: each protocol has its own agent.
 */
describe('send: one connection serves the run', () => {
  it("sends requests in a row on one connection, and leaves no listener on the run's signal", async () => {
    onTestClock('idle time')
    const { url, connections } = await serveWith((_req, res) => res.end('{}'))
    const run = new AbortController()
    expect((await send(get(url, { signal: run.signal }))).headers['connection']).toBe('keep-alive')
    await send(get(url, { signal: run.signal }))
    await send(patch(url, { idleMarginMs: 3_000, signal: run.signal }))
    expect(connections(), 'one connection for three requests in a row').toBe(1)
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0)
  })

  it.each([
    ['timeout=3', 2_500, 499, 1],
    ['timeout=3', 2_500, 500, 2],
    ['max=100, timeout=3', 2_500, 500, 2],
    ['max=100,timeout=3', 2_500, 500, 2],
    ['Timeout=3', 2_500, 500, 2],
    ['timeout=10', 9_500, 499, 1],
    [undefined, 4_700, 299, 1],
    [undefined, 4_700, 300, 2],
    ['timeout=2', undefined, 999, 1],
    ['timeout=2', undefined, 1_000, 2]
  ] as const)(
    "Keep-Alive: %s (none: the service's 5 s), a margin of %s ms (none: a read's 1 s), %d ms idle: %d connection(s)",
    async (keepAlive, idleMarginMs, idleMs, expected) => {
      // The server closes no idle connection itself.
      onTestClock('idle time')
      const { url, server, connections } = await serveWith((_req, res) =>
        res.writeHead(200, keepAlive === undefined ? {} : { 'Keep-Alive': keepAlive }).end('{}')
      )
      server.keepAliveTimeout = 0
      expect((await send(get(url, { idleMarginMs }))).headers['keep-alive']).toBe(keepAlive)
      vi.advanceTimersByTime(idleMs)
      await send(get(url, { idleMarginMs }))
      expect(connections()).toBe(expected)
      await send(get(url, { idleMarginMs }))
      expect(connections(), 'the next request at once reuses the connection the last one took').toBe(expected)
    }
  )

  it('never hands the next request a tired connection, even one freed after a connection still fresh', async () => {
    // Two connections at once. The first answer read announces 60 s; the second, freed after
    // it (last in the pool, the one the pool gives next), announces 2 s: within a PATCH's 3 s
    // margin, so it is closed before the PATCH goes.
    onTestClock('idle time')
    let release!: () => void
    const held = new Promise<void>(resolve => (release = resolve))
    const bodies: string[] = []
    const served = await serveWith(async (req, res) => {
      bodies.push(await readBody(req))
      if (req.url === '/short') await held
      res.writeHead(200, { 'Keep-Alive': req.url === '/short' ? 'timeout=2' : 'timeout=60' }).end(JSON.stringify({ path: req.url }))
    })
    served.server.keepAliveTimeout = 0
    const short = send(get(`${served.url}/short`))
    await send(get(`${served.url}/long`))
    release()
    await short
    expect(served.connections(), 'one connection per request in flight').toBe(2)
    const answer = await send(patch(`${served.url}/stats`, { idleMarginMs: 3_000 }))
    expect(answer.json, 'the PATCH was answered, not failed on the closed connection').toEqual({ path: '/stats' })
    expect(bodies.at(-1)).toBe(PATCH_BODY)
    expect(served.connections(), 'it went on the connection still fresh').toBe(2)
  })

  it('closes the connection of an answer over the limit instead of reading the rest; the next request opens a fresh one', async () => {
    let seenClosed!: () => void
    const closed = new Promise<'closed'>(resolve => (seenClosed = () => resolve('closed')))
    const { url, connections } = await serveWith((req, res) => {
      if (req.url !== '/endless') return void res.end('{}')
      // Chunks smaller than the limit: it is reached across them.
      const timer = setInterval(() => res.write('z'.repeat(300)), 5)
      res.on('close', () => {
        clearInterval(timer)
        seenClosed()
      })
    })
    const got = await send(get(`${url}/endless`, { maxBodyBytes: 1_000 }))
    expect(got).toMatchObject({ status: 200, truncated: true, text: 'z'.repeat(1_000), json: undefined })
    expect(await Promise.race([closed, guard(10_000)]), 'the server saw the connection closed').toBe('closed')
    await send(get(url))
    expect(connections()).toBe(2)
  })
})

describe('send: answers', () => {
  it('sends the request as given, with Content-Length in bytes, and returns the answer as it came', async () => {
    let received: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string } | undefined
    const answer = JSON.stringify({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 60 })
    const url = await serve(async (req, res) => {
      received = { method: req.method, url: req.url, headers: req.headers, body: await readBody(req) }
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '60' }).end(answer)
    })
    const body = '{"note":"Überprüfung ✓"}'
    const headers = { Authorization: KEY, 'User-Agent': 'bot-stats/0.1.0' }
    const got = await send({ method: 'PATCH', url: `${url}/api/bots/123456789012345678/stats`, headers, body, timeoutMs: 5_000 })
    expect(received).toMatchObject({ method: 'PATCH', url: '/api/bots/123456789012345678/stats', body })
    expect(received?.headers).toMatchObject({
      authorization: KEY,
      'user-agent': 'bot-stats/0.1.0',
      'content-length': String(Buffer.byteLength(body))
    })
    expect(received?.headers['transfer-encoding']).toBeUndefined()
    expect(got).toMatchObject({
      status: 429,
      headers: { 'retry-after': '60' },
      text: answer,
      truncated: false,
      json: JSON.parse(answer) as unknown
    })
  })

  const LIMIT = 1_000
  it.each([
    ['a JSON object', '{"success":true}', undefined, { success: true }, false],
    ['a JSON array after white space', ' \n[1,2]', undefined, [1, 2], false],
    ['a JSON scalar', '42', undefined, undefined, false],
    ['a JSON string that holds an object', '"{\\"a\\":1}"', undefined, undefined, false],
    ['text that contains JSON', 'error: {"a":1}', undefined, undefined, false],
    ['broken JSON', '{"success":tru', undefined, undefined, false],
    ['an empty body', '', undefined, undefined, false],
    ['bytes that are not UTF-8, kept as they came', Buffer.from('\ufeff[]', 'utf16le'), undefined, undefined, false],
    ['a body one byte under the limit', 'x'.repeat(LIMIT - 1), LIMIT, undefined, false],
    ['a body at the limit', 'x'.repeat(LIMIT), LIMIT, undefined, false],
    ['a body one byte over the limit', 'x'.repeat(LIMIT + 1), LIMIT, undefined, true],
    ['a body 50 times the limit', 'x'.repeat(LIMIT * 50), LIMIT, undefined, true],
    ['JSON whose kept bytes would parse: a cut body is never parsed', `{"a":1}${' '.repeat(LIMIT)}`, LIMIT, undefined, true],
    ['200 KiB under the default limit: 64 KiB kept', 'w'.repeat(200 * 1024), undefined, undefined, true]
  ])('%s (limit %s): json %j, truncated %s', async (_label, body, maxBodyBytes, json, truncated) => {
    const bytes = Buffer.from(body)
    const url = await serve((_req, res) => res.end(bytes))
    const kept = bytes.subarray(0, maxBodyBytes ?? 64 * 1024)
    const got = await send(get(url, { maxBodyBytes }))
    expect(got).toEqual({ status: 200, headers: expect.any(Object), text: kept.toString('utf8'), bytes: kept, truncated, json })
  })
})

describe('send: a status line that came is the answer; an interim (1xx) one is not', () => {
  const HINTS = 'HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n'
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'
  const OK = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"success":true}'
  /** A final answer whose headers overflow Node's parser: the request fails without a response, though the status came. */
  const big = (statusLine: string): string => `${statusLine}\r\nX-Filler: ${'a'.repeat(100_000)}\r\n\r\n`
  const B201 = big('HTTP/1.1 201 Created')
  const [B429, LONG_HINT] = [big('HTTP/1.1 429 Too Many Requests'), `HTTP/1.1 103 Early Hints\r\nLink: <${'x'.repeat(300)}>\r\n\r\n`]
  /** `text` in chunks cut at these offsets. */
  const cut = (text: string, ...at: number[]): string[] => [0, ...at].map((from, i) => text.slice(from, at[i]))
  const [ANSWER, NONE] = [{ answer: 200, json: { success: true } }, { answered: undefined }]

  it.each([
    ['a 103 Early Hints, then the connection dropped', [HINTS], NONE],
    ['a 100 Continue, then the connection dropped', [CONTINUE], NONE],
    ['two 103s, then the connection dropped', [HINTS + HINTS], NONE],
    ['a 103 cut across chunks, then the connection dropped', cut(HINTS, 11, 38), NONE],
    ['a 103 whose own headers overflow the parser', [big('HTTP/1.1 103 Early Hints')], NONE],
    ['a 103 with a header line that looks like a status line', ['HTTP/1.1 103 Early Hints\r\nX: HTTP/1.1 200 OK\r\n\r\n'], NONE],
    ['a 103 and a 200 in one chunk', [HINTS + OK], ANSWER],
    ['a 103 and a 200 apart', [HINTS, OK], ANSWER],
    ['a 100, a 103 and a 200, each status line cut in two', cut(CONTINUE + HINTS + OK, 12, 30, 65, 75), ANSWER],
    ['a 429 whose headers overflow the parser', [B429], { answered: 429 }],
    ['a 200 whose headers overflow the parser', [big('HTTP/1.1 200 OK')], { answered: 200 }],
    ['an HTTP/1.0 500 whose headers overflow the parser', [big('HTTP/1.0 500 Internal Server Error')], { answered: 500 }],
    ['an HTTP/1 201 whose headers overflow the parser', [big('HTTP/1 201 Created')], { answered: 201 }],
    ['a 103 and an overflowing 429 in one chunk', [HINTS + B429], { answered: 429 }],
    ['a 100 Continue and an overflowing 429 apart', [CONTINUE, B429], { answered: 429 }],
    ['a 103 with a long header line cut across chunks, then an overflowing 201', [...cut(LONG_HINT, 40), B201], { answered: 201 }],
    ['an overflowing 409 in chunks of a few bytes', cut(big('HTTP/1.1 409 Conflict'), 3, 7, 11, 14), { answered: 409 }],
    ['a 429 whose reason phrase overflows (read before its end)', [`HTTP/1.1 429 ${'Too Many '.repeat(12e3)}\r\n\r\n`], { answered: 429 }],
    ['an overflowing 429 with an empty reason phrase', [big('HTTP/1.1 429 ')], { answered: 429 }],
    ['an overflowing 429 with no reason phrase', [big('HTTP/1.1 429')], { answered: 429 }]
  ])('%s', async (_label, pieces, expected) => {
    const url = await serveRaw(socket => writeApart(socket, pieces))
    const outcome = await send(patch(url)).then(
      answer => ({ answer: answer.status, json: answer.json }),
      (error: unknown) => (error instanceof NetworkError && error.delivered ? { answered: error.answered?.status } : { error })
    )
    expect(outcome).toEqual(expected)
  })
})

describe('send: a failure says whether the request may have been read', () => {
  it('a refused connection: nothing was delivered', async () => {
    const url = await closedPort()
    const error = await failure(send(patch(url)))
    expect(error.name).toBe('NetworkError')
    expect(error).toMatchObject({ code: 'ECONNREFUSED', delivered: false, answered: undefined })
    expect(error.message).toBe(`could not connect to ${new URL(url).host}: the connection was refused`)
  })

  const cutOff = (res: http.ServerResponse): unknown => res.socket?.destroy()
  const midAnswer = (res: http.ServerResponse): unknown => res.writeHead(429, { 'X-Seen': 'yes' }).write('{', () => cutOff(res))
  it.each([
    ['once it read the request, unanswered', cutOff, undefined],
    ['in the middle of the answer: its status and headers kept', midAnswer, { status: 429, headers: { 'x-seen': 'yes' } }]
  ])('the server drops the connection %s: maybe delivered', async (_label, drop, answered) => {
    const received: string[] = []
    const url = await serve(async (req, res) => {
      received.push(await readBody(req))
      drop(res)
    })
    const error = await failure(send(patch(url)))
    expect(received).toEqual([PATCH_BODY])
    expect(error).toMatchObject({ code: 'ECONNRESET', delivered: true, answered })
    expect(error.message).toBe(`the connection to ${new URL(url).host} failed (ECONNRESET)`)
  })

  it.each([
    ['ENOTFOUND', 'could not connect to api.discord.place: the host name could not be resolved'],
    ['EAI_AGAIN', 'could not connect to api.discord.place: the host name could not be resolved'],
    ['EHOSTUNREACH', 'could not reach api.discord.place (EHOSTUNREACH)'],
    ['ENETUNREACH', 'could not reach api.discord.place (ENETUNREACH)'],
    ['EPROTO', 'the connection to api.discord.place failed (EPROTO)'],
    [undefined, 'the connection to api.discord.place failed (unknown error)']
  ])('a %s before the connection opens: nothing delivered, "%s"', async (code, message) => {
    lookups(code === undefined ? {} : { code })
    const error = await failure(send(patch('http://api.discord.place/bots/1')))
    expect(error).toMatchObject({ code, message, delivered: false })
  })

  it('a certificate the runner does not trust: nothing delivered, and the reason named', async () => {
    let requests = 0
    const target = await serveTls((_req, res) => {
      requests += 1
      res.end('{}')
    })
    const error = await failure(send(patch(`${target.url}/bots/1/stats`)))
    expect(error).toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', delivered: false })
    expect(error.message).toBe(
      `could not connect to 127.0.0.1:${target.port}: its TLS certificate was not accepted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`
    )
    expect(requests).toBe(0)
  })

  it('a failure on a reused TLS connection, or after a fresh handshake: maybe delivered', async () => {
    let connections = 0
    let requests = 0
    const target = await serveTls((req, res) => {
      // The server reads the second and third requests, then drops their connections unanswered.
      if (++requests === 1) res.end('{}')
      else req.on('end', () => res.socket?.destroy()).resume()
    })
    target.server.on('secureConnection', () => (connections += 1))
    trustTestCa()
    onTestClock('idle time')
    await send(get(target.url))
    const reused = await failure(send(patch(target.url, { idleMarginMs: 3_000 })))
    expect(connections, 'the PATCH went on the kept-alive connection').toBe(1)
    expect(reused.delivered, 'a reset on a reused connection may follow delivery').toBe(true)
    const fresh = await failure(send(patch(target.url)))
    expect(connections, 'the next PATCH opened a fresh connection').toBe(2)
    expect(fresh.delivered, 'sent once the handshake was done: it may have been read').toBe(true)
  })

  it('a run already stopped: nothing is sent, nothing delivered', async () => {
    const methods: string[] = []
    const url = await serve((req, res) => {
      methods.push(req.method ?? '')
      res.end('{}')
    })
    const signal = AbortSignal.abort()
    const failing = failure(send(patch(url, { signal })))
    expect(await watch(failing)(), 'at once').toBe(true)
    expect(await failing).toMatchObject({ code: 'ABORT_ERR', delivered: false })
    expect(getEventListeners(signal, 'abort'), 'no listener left on a signal that had aborted').toHaveLength(0)
    await send(get(url))
    expect(methods, 'only the request after it reached the server').toEqual(['GET'])
  })
})

describe('send: through a proxy (HTTP_PROXY, via @actions/http-client)', () => {
  it.each([
    ['http_proxy', 'http', 80],
    ['HTTP_PROXY', 'http', 80],
    ['https_proxy', 'https', 443],
    ['HTTPS_PROXY', 'https', 443]
  ] as const)('%s takes %s through the proxy; a target it refuses was not delivered', async (name, scheme, port) => {
    const proxy = await proxyFor({})
    const error = await withProxy({ [name]: proxy.url }, () => failure(send(patch(`${scheme}://api.discord.place/bots/1/stats`))))
    expect(proxy.connects).toEqual([`api.discord.place:${port}`])
    expect(error.delivered).toBe(false)
    expect(error.message).toBe(
      "the proxy did not open a connection to api.discord.place; it answered 502: check the proxy's rules for api.discord.place, or set NO_PROXY for it"
    )
  })

  it('tunnels through the proxy named when each request is made; NO_PROXY hosts and loopback go direct, on kept-alive connections; a 407 names the credentials', async () => {
    onTestClock('idle time')
    const { url, connections } = await serveWith((req, res) => res.end(JSON.stringify({ path: req.url })))
    const port = Number(new URL(url).port)
    const [first, second] = [await proxyFor({ 'api.discord.place:80': port }), await proxyFor({ 'api.discord.place:80': port })]
    await withProxy({ http_proxy: first.url, no_proxy: 'direct.test' }, async () => {
      expect((await send(get('http://api.discord.place/bots/1'))).json).toEqual({ path: '/bots/1' })
      expect((await send(get('http://api.discord.place/bots/2'))).json).toEqual({ path: '/bots/2' })
      expect(first.connects, 'a tunnel closes when no request waits for it: each request has its own').toEqual([
        'api.discord.place:80',
        'api.discord.place:80'
      ])
      process.env['http_proxy'] = second.url
      expect((await send(get('http://api.discord.place/bots/3'))).json).toEqual({ path: '/bots/3' })
      expect(second.connects, 'the proxy named when the request is made').toEqual(['api.discord.place:80'])

      const before = connections()
      expect((await send(get(`${url}/a`))).json).toEqual({ path: '/a' })
      expect((await send(get(`${url}/b`))).json).toEqual({ path: '/b' })
      lookups({ address: '127.0.0.1' })
      expect((await send(get(`http://direct.test:${port}/c`))).json).toEqual({ path: '/c' })
      expect(connections(), 'one kept-alive connection to loopback, one to the NO_PROXY host').toBe(before + 2)
      expect([...first.connects, ...second.connects], 'none of them through a proxy').toHaveLength(3)

      second.requireAuthorization = 'Basic dXNlcjpwYXNz'
      const refused = await failure(send(patch('http://api.discord.place/bots/1/stats')))
      expect(refused.delivered).toBe(false)
      expect(refused.message).toBe(
        'the proxy did not open a connection to api.discord.place; it asks for proxy authentication (407 Proxy Authentication Required): check the user name and password in HTTPS_PROXY or HTTP_PROXY (http://user:password@host:port)'
      )
    })
  })
})

describe('send: the deadline and a stop cut the exchange off, and close its connection', () => {
  /** Where a case's exchange goes, when it is where the case cuts it, and when its connection (or CONNECT) was seen closed. */
  type Case = () => Promise<{ env: ProxyEnv; url: string; ready: () => boolean; closed: () => Promise<unknown> }>
  /** A server that reads the PATCH, then never answers, or with `answers` sends the head of an answer whose body never ends. */
  async function reading(secure: boolean, answers = false): Promise<Omit<Awaited<ReturnType<Case>>, 'env'> & { port: number }> {
    let [read, closed] = [false, Promise.resolve() as Promise<unknown>]
    const handler: http.RequestListener = async (req, res) => {
      closed = new Promise(resolve => req.socket.once('close', resolve))
      read = (await readBody(req)) === PATCH_BODY
      if (answers) res.writeHead(200).write('{"success":')
    }
    if (secure) trustTestCa()
    const url = secure ? (await serveTls(handler)).url : await serve(handler)
    const head = headSeen(url)
    return { url, port: Number(new URL(url).port), ready: () => read && (!answers || head()), closed: () => closed }
  }
  const direct =
    (answers: boolean): Case =>
    async () => ({ env: {}, ...(await reading(false, answers)) })
  /** Through a proxy to a target (its port, and when it has what the case waits for), or to a proxy that holds every CONNECT. */
  const tunnel =
    (scheme: 'http' | 'https', target?: () => Promise<{ port: number; ready: () => boolean }>): Case =>
    async () => {
      const to = await target?.()
      const proxy = await proxyFor(to ? { [`api.discord.place:${scheme === 'https' ? 443 : 80}`]: to.port } : {})
      proxy.hangConnects = to === undefined
      const ready = to?.ready ?? (() => proxy.connects.length === 1)
      const env = scheme === 'https' ? { HTTPS_PROXY: proxy.url } : { HTTP_PROXY: proxy.url }
      return { env, url: `${scheme}://api.discord.place/bots/1/stats`, ready, closed: () => proxy.connectClosed[0]! }
    }
  /** A target that accepts TCP and never speaks TLS. */
  const silent = async (): Promise<{ port: number; ready: () => boolean }> => {
    let hello = false
    return { port: Number(new URL(await serveRaw(() => (hello = true))).port), ready: () => hello }
  }

  it.each([
    ['a server that read the request and never answers', direct(false), 'deadline', true, undefined],
    ['an answer whose body never ends', direct(true), 'deadline', true, 200],
    ['a server that read the request', direct(false), 'stop', true, undefined],
    ['a proxy that never answers CONNECT', tunnel('https'), 'deadline', false, undefined],
    ['a proxy that holds the CONNECT', tunnel('https'), 'stop', false, undefined],
    ['a tunnel to a server that never completes TLS', tunnel('https', silent), 'deadline', false, undefined],
    ['a tunnel whose TLS handshake completed, the PATCH read', tunnel('https', () => reading(true)), 'deadline', true, undefined],
    ['a tunnel to an http server that read the request', tunnel('http', () => reading(false)), 'deadline', true, undefined]
  ] as const)('%s: cut off by the %s, delivered %s, answered %s', async (_label, setup, end, delivered, answered) => {
    onTestClock('deadlines')
    const { env, url, ready, closed } = await setup()
    const stop = new AbortController()
    await withProxy(env, async () => {
      const failing = failure(send(patch(url, { timeoutMs: 300, signal: stop.signal })))
      const settled = watch(failing)
      await until(ready, 'the exchange is where the case cuts it')
      if (end === 'deadline') vi.advanceTimersByTime(299)
      expect(await settled(), 'not cut off before the deadline or the stop').toBe(false)
      if (end === 'deadline') vi.advanceTimersByTime(1)
      else stop.abort()
      expect(await settled(), 'cut off at once').toBe(true)
      const error = await failing
      expect({ code: error.code, delivered: error.delivered, answered: error.answered?.status }).toEqual({
        code: end === 'deadline' ? 'ETIMEDOUT' : 'ABORT_ERR',
        delivered,
        answered
      })
      if (end === 'deadline') expect(error.message).toBe(`no complete answer from ${new URL(url).host} within 0.3 s`)
      expect(await Promise.race([closed().then(() => 'closed'), guard(10_000)]), 'not left to keep the process alive').toBe('closed')
      expect(getEventListeners(stop.signal, 'abort'), "no listener left on the run's signal").toHaveLength(0)
    })
  })
})

describe('retryAfterMs: the wait an answer asks for', () => {
  const answer = (status: number, headers: http.IncomingHttpHeaders, json?: unknown): HttpAnswer => ({
    status,
    headers,
    text: json === undefined ? '' : JSON.stringify(json),
    truncated: false,
    json
  })

  it.each([
    ['retry_after in the body first', answer(429, { 'retry-after': '30', 'ratelimit-reset': '20' }, { retry_after: 60 }), 60_000],
    ['then Retry-After', answer(429, { 'retry-after': '30', 'ratelimit-reset': '20' }, { error: 'x' }), 30_000],
    ['then RateLimit-Reset on a 429', answer(429, { 'ratelimit-reset': '20' }), 20_000],
    ['RateLimit-Reset when the limiter is spent', answer(200, { 'ratelimit-remaining': ' 0 ', 'ratelimit-reset': '7' }), 7_000],
    ['no RateLimit-Reset while the limiter has room', answer(200, { 'ratelimit-remaining': '1', 'ratelimit-reset': '7' }), undefined],
    ['no RateLimit-Reset on a 5xx: a backoff, not the window', answer(503, { 'ratelimit-reset': '1800' }), undefined],
    ['Retry-After on a 5xx', answer(503, { 'retry-after': '5', 'ratelimit-reset': '1800' }), 5_000],
    ['a fraction of a second, rounded up', answer(429, { 'retry-after': '1.0005' }), 1_001],
    ['a figure with spaces', answer(429, { 'retry-after': ' 12 ' }), 12_000],
    ['a figure as a string in the body', answer(429, {}, { retry_after: '5' }), 5_000],
    ['zero', answer(429, { 'retry-after': '0' }), 0],
    ['a day at most', answer(429, { 'retry-after': '999999' }), 86_400_000],
    ['nothing negative: the next figure', answer(429, { 'retry-after': '9' }, { retry_after: -5 }), 9_000],
    ['nothing that is not a figure: the next one', answer(429, { 'retry-after': 'Wed, 21 Oct 2015', 'ratelimit-reset': '4' }), 4_000],
    ['nothing from a non-number in the body', answer(429, { 'retry-after': '3' }, { retry_after: 'soon' }), 3_000],
    ['nothing from an empty header', answer(429, { 'retry-after': '' }), undefined],
    ['nothing from a figure in another notation', answer(429, { 'retry-after': '1e3', 'ratelimit-reset': '0x10' }), undefined],
    ['nothing infinite', answer(429, {}, { retry_after: Infinity }), undefined],
    ['nothing at all', answer(429, {}), undefined]
  ])('%s', (_label, given, expected) => {
    expect(retryAfterMs(given)).toBe(expected)
  })

  it('leaves RateLimit-Reset out when told to', () => {
    expect(retryAfterMs(answer(429, { 'ratelimit-reset': '20' }), { limiterReset: false })).toBeUndefined()
    expect(retryAfterMs(answer(429, { 'ratelimit-reset': '20', 'retry-after': '2' }), { limiterReset: false })).toBe(2_000)
  })
})

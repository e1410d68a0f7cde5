/**
 * The transport (src/http/transport.ts): one exchange against real loopback servers, proxies and
 * TLS. Deadlines run on a fake setTimeout the test moves at a known point of the exchange.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { getEventListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import { text } from 'node:stream/consumers'
import * as http from 'node:http'
import * as https from 'node:https'
import * as net from 'node:net'
import tls from 'node:tls'
import { describe, expect, it, vi } from 'vitest'
import {
  type HttpAnswer,
  type HttpRequest,
  NetworkError,
  retryAfterMs,
  send
} from '../../src/http/transport.js'
import { answer as empty } from '../support/answers.js'
import { KEY, unreachableUrl } from '../support/inprocess.js'
import { ForwardProxy } from '../support/proxy.js'
import { afterTest, listenForTest } from '../support/teardown.js'

const fixture = (name: string): Buffer =>
  readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url))

/**
 * A server on a free loopback port, closed when its test ends; `secure`: https, certified for
 * 127.0.0.1 and api.discord.place.
 */
async function serve(
  handler: http.RequestListener,
  secure = false
): Promise<{ url: string; port: number; connections: () => number }> {
  const server = secure
    ? https.createServer({ key: fixture('server-key.pem'), cert: fixture('server.pem') }, handler)
    : http.createServer(handler)
  let connections = 0
  server.on('connection', () => (connections += 1))
  const port = await listenForTest(server)
  return {
    url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    connections: () => connections
  }
}

/** A raw TCP server: `answer` writes the bytes of the answer once the request has arrived. */
async function serveRaw(answer: (socket: net.Socket) => void): Promise<string> {
  const server = net.createServer(socket =>
    socket.on('error', () => undefined).once('data', () => answer(socket))
  )
  return `http://127.0.0.1:${await listenForTest(server)}`
}

/** Writes each piece as a chunk of its own (a pause between them), then drops the connection. */
function writeApart(socket: net.Socket, [first, ...rest]: readonly string[]): void {
  if (first === undefined) socket.destroy()
  else socket.write(first, () => setTimeout(() => writeApart(socket, rest), 30))
}

/**
 * Settles with 'gave up' after `ms` of real time (fake timers do not replace this setTimeout): a
 * wait's failure guard.
 */
const realSetTimeout = globalThis.setTimeout
const guard = (ms: number): Promise<'gave up'> =>
  new Promise(resolve => realSetTimeout(() => resolve('gave up'), ms).unref())

/**
 * Trusts the test CA until the test ends, as NODE_EXTRA_CA_CERTS does: every TLS connection is made
 * with `tls.connect`.
 */
function trustTestCa(): void {
  const [ca, connect] = [fixture('ca.pem'), tls.connect]
  const trusting = vi.spyOn(tls, 'connect').mockImplementation(((...args: unknown[]) => {
    // A copy: the agent files a socket it frees under a name made from the options it was made
    // with.
    const given = args.map(arg => (typeof arg === 'object' && arg !== null ? { ...arg, ca } : arg))
    return (connect as (...given: unknown[]) => tls.TLSSocket)(...given)
  }) as typeof tls.connect)
  afterTest(() => trusting.mockRestore())
}

/**
 * Name lookups of direct connections fail with `error`, or without it find 127.0.0.1, until the
 * test ends.
 */
function lookups(error?: { code?: string }): void {
  const original = http.Agent.prototype.createConnection
  const spy = vi.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(function (
    this: http.Agent,
    options,
    callback
  ) {
    const lookup: net.LookupFunction = (_host, { all }, done) =>
      process.nextTick(() => {
        if (error) done(Object.assign(new Error('lookup failed'), error), '', 4)
        else if (all) done(null, [{ address: '127.0.0.1', family: 4 }])
        else done(null, '127.0.0.1', 4)
      })
    return original.call(this, { ...options, lookup } as typeof options, callback)
  })
  afterTest(() => spy.mockRestore())
}

const get = (url: string, more: Partial<HttpRequest> = {}): HttpRequest => ({
  method: 'GET',
  url,
  headers: {},
  timeoutMs: 5e3,
  ...more
})
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
 * Whether `promise` has settled, read after a turn of the event loop (setImmediate is never faked).
 */
function watch(promise: Promise<unknown>): () => Promise<boolean> {
  let settled = false
  void promise.then(() => (settled = true)).catch(() => (settled = true))
  return () => new Promise(resolve => setImmediate(() => resolve(settled)))
}

/** The variables that name a proxy, or hosts to reach without one. */
const names = [
  'http_proxy',
  'HTTP_PROXY',
  'https_proxy',
  'HTTPS_PROXY',
  'no_proxy',
  'NO_PROXY'
] as const

async function proxyFor(map: Record<string, number> = {}): Promise<ForwardProxy> {
  const proxy = await ForwardProxy.start(map)
  afterTest(() => proxy.close())
  return proxy
}

/** The proxy variables as `env` sets them, and no others, until the test ends. */
function proxyEnv(env: Partial<Record<(typeof names)[number], string>>): void {
  for (const name of names) vi.stubEnv(name, env[name])
  afterTest(() => vi.unstubAllEnvs())
}

describe('send: answers', () => {
  it('closes the connection of an answer over the limit unread; requests in a row then share one, leaving no listener', async () => {
    let closed = Promise.resolve('not yet')
    const { url, connections } = await serve((req, res) => {
      if (req.url !== '/endless') return void res.end('{}')
      // Chunks smaller than the limit: it is reached across them.
      const timer = setInterval(() => res.write('z'.repeat(300)), 5)
      res.on('close', () => clearInterval(timer))
      closed = new Promise(resolve => res.on('close', () => resolve('closed')))
    })
    const got = await send(get(`${url}/endless`, { maxBodyBytes: 1_000 }))
    expect(got).toMatchObject({
      status: 200,
      truncated: true,
      text: 'z'.repeat(1_000),
      json: undefined
    })
    expect(
      await Promise.race([closed, guard(10_000)]),
      'the server saw the connection closed'
    ).toBe('closed')
    const run = new AbortController()
    for (const request of [get(url), get(url), patch(url)])
      expect((await send({ ...request, signal: run.signal })).status).toBe(200)
    expect(connections(), 'one fresh connection for the three requests in a row').toBe(2)
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0)
  })

  it('sends the request as given, with Content-Length in bytes, and returns the answer as it came', async () => {
    let received:
      { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string } | undefined
    const { url } = await serve(async (req, res) => {
      received = { method: req.method, url: req.url, headers: req.headers, body: await text(req) }
      res.writeHead(429, { 'Retry-After': '60' }).end('{"retry_after":60}')
    })
    const body = '{"note":"Überprüfung ✓"}'
    const got = await send(patch(`${url}/api/bots/1/stats`, { body }))
    const headers = { authorization: KEY, 'content-length': String(Buffer.byteLength(body)) }
    expect(received).toMatchObject({ method: 'PATCH', url: '/api/bots/1/stats', body, headers })
    expect(received?.headers).not.toHaveProperty('transfer-encoding')
    expect(got).toMatchObject({
      status: 429,
      headers: { 'retry-after': '60' },
      text: '{"retry_after":60}',
      json: { retry_after: 60 }
    })
  })

  const LIMIT = 1_000
  it.each<{
    label: string
    body: string | Buffer
    limit?: number
    json?: unknown
    truncated: boolean
  }>([
    { label: 'a JSON object', body: '{"success":true}', json: { success: true }, truncated: false },
    { label: 'a JSON array after white space', body: ' \n[1,2]', json: [1, 2], truncated: false },
    { label: 'a JSON scalar', body: '42', truncated: false },
    { label: 'a JSON string that holds an object', body: '"{\\"a\\":1}"', truncated: false },
    { label: 'text that contains JSON', body: 'error: {"a":1}', truncated: false },
    { label: 'broken JSON', body: '{"success":tru', truncated: false },
    { label: 'an empty body', body: '', truncated: false },
    {
      label: 'bytes that are not UTF-8, kept as they came',
      body: Buffer.from('\ufeff[]', 'utf16le'),
      truncated: false
    },
    {
      label: 'a body one byte under the limit',
      body: 'x'.repeat(LIMIT - 1),
      limit: LIMIT,
      truncated: false
    },
    { label: 'a body at the limit', body: 'x'.repeat(LIMIT), limit: LIMIT, truncated: false },
    {
      label: 'a body one byte over the limit',
      body: 'x'.repeat(LIMIT + 1),
      limit: LIMIT,
      truncated: true
    },
    {
      label: 'a body 50 times the limit',
      body: 'x'.repeat(LIMIT * 50),
      limit: LIMIT,
      truncated: true
    },
    {
      label: 'JSON whose kept bytes would parse: a cut body is never parsed',
      body: `{"a":1}${' '.repeat(LIMIT)}`,
      limit: LIMIT,
      truncated: true
    },
    {
      label: '200 KiB under the default limit: 64 KiB kept',
      body: 'w'.repeat(200 * 1024),
      truncated: true
    }
  ])(
    '$label (limit $limit): json $json, truncated $truncated',
    async ({ body, limit: maxBodyBytes, json, truncated }) => {
      const bytes = Buffer.from(body)
      const { url } = await serve((_req, res) => res.end(bytes))
      const kept = bytes.subarray(0, maxBodyBytes ?? 64 * 1024)
      const got = await send(get(url, { maxBodyBytes }))
      expect(got).toEqual({
        status: 200,
        headers: expect.any(Object),
        text: kept.toString('utf8'),
        bytes: kept,
        truncated,
        json
      })
    }
  )
})

describe('send: a status line that came is the answer; an interim (1xx) one is not', () => {
  const HINTS = 'HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n'
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'
  const OK =
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"success":true}'
  /**
   * A final answer whose headers overflow Node's parser: the request fails without a response,
   * though the status came.
   */
  const big = (statusLine: string): string =>
    `${statusLine}\r\nX-Filler: ${'a'.repeat(100_000)}\r\n\r\n`
  const B201 = big('HTTP/1.1 201 Created')
  const [B429, LONG_HINT] = [
    big('HTTP/1.1 429 Too Many Requests'),
    `HTTP/1.1 103 Early Hints\r\nLink: <${'x'.repeat(300)}>\r\n\r\n`
  ]
  /** `text` in chunks cut at these offsets. */
  const cut = (text: string, ...at: number[]): string[] =>
    [0, ...at].map((from, i) => text.slice(from, at[i]))
  const [ANSWER, NONE] = [{ answer: 200, json: { success: true } }, { answered: undefined }]

  it.each([
    ['a 103 Early Hints, then the connection dropped', [HINTS], NONE],
    ['a 100 Continue, then the connection dropped', [CONTINUE], NONE],
    ['two 103s, then the connection dropped', [HINTS + HINTS], NONE],
    ['a 103 cut across chunks, then the connection dropped', cut(HINTS, 11, 38), NONE],
    ['a 103 whose own headers overflow the parser', [big('HTTP/1.1 103 Early Hints')], NONE],
    [
      'a 103 with a header line that looks like a status line',
      ['HTTP/1.1 103 Early Hints\r\nX: HTTP/1.1 200 OK\r\n\r\n'],
      NONE
    ],
    ['a 103 and a 200 in one chunk', [HINTS + OK], ANSWER],
    ['a 103 and a 200 apart', [HINTS, OK], ANSWER],
    [
      'a 100, a 103 and a 200, each status line cut in two',
      cut(CONTINUE + HINTS + OK, 12, 30, 65, 75),
      ANSWER
    ],
    ['a 429 whose headers overflow the parser', [B429], { answered: 429 }],
    ['a 200 whose headers overflow the parser', [big('HTTP/1.1 200 OK')], { answered: 200 }],
    [
      'an HTTP/1.0 500 whose headers overflow the parser',
      [big('HTTP/1.0 500 Internal Server Error')],
      { answered: 500 }
    ],
    [
      'an HTTP/1 201 whose headers overflow the parser',
      [big('HTTP/1 201 Created')],
      { answered: 201 }
    ],
    ['a 103 and an overflowing 429 in one chunk', [HINTS + B429], { answered: 429 }],
    ['a 100 Continue and an overflowing 429 apart', [CONTINUE, B429], { answered: 429 }],
    [
      'a 103 with a long header line cut across chunks, then an overflowing 201',
      [...cut(LONG_HINT, 40), B201],
      { answered: 201 }
    ],
    [
      'an overflowing 409 in chunks of a few bytes',
      cut(big('HTTP/1.1 409 Conflict'), 3, 7, 11, 14),
      { answered: 409 }
    ],
    [
      'a 429 whose reason phrase overflows (read before its end)',
      [`HTTP/1.1 429 ${'Too Many '.repeat(12e3)}\r\n\r\n`],
      { answered: 429 }
    ],
    ['an overflowing 429 with an empty reason phrase', [big('HTTP/1.1 429 ')], { answered: 429 }],
    ['an overflowing 429 with no reason phrase', [big('HTTP/1.1 429')], { answered: 429 }]
  ])('%s', async (_label, pieces, expected) => {
    const url = await serveRaw(socket => writeApart(socket, pieces))
    const outcome = await send(patch(url)).then(
      answer => ({ answer: answer.status, json: answer.json }),
      (error: unknown) =>
        error instanceof NetworkError && error.delivered
          ? { answered: error.answered?.status }
          : { error }
    )
    expect(outcome).toEqual(expected)
  })
})

describe('send: a failure says whether the request may have been read', () => {
  /** Where a case sends its PATCH, and what its server read (or the CONNECTs its proxy saw). */
  type Target = () => Promise<{ url: string; read: string[] }>
  const reading =
    (act: (res: http.ServerResponse) => unknown, secure = false): Target =>
    async () => {
      const read: string[] = []
      const { url } = await serve(async (req, res) => {
        read.push(await text(req))
        act(res)
      }, secure)
      return { url, read }
    }
  const closedPort: Target = async () => ({
    url: await unreachableUrl({ now: Date.now }),
    read: []
  })
  const lookup =
    (code?: string): Target =>
    async () => (lookups({ code }), { url: 'http://api.discord.place/bots/1', read: [] })
  /**
   * Through a proxy named by `variable` that maps nothing (a 502 to every CONNECT), or asks for
   * credentials.
   */
  const proxied =
    (variable: (typeof names)[number], authorization?: string): Target =>
    async () => {
      const proxy = await proxyFor()
      proxy.requireAuthorization = authorization
      proxyEnv({ [variable]: proxy.url })
      return {
        url: `${variable.toLowerCase().replace('_proxy', '')}://api.discord.place/bots/1/stats`,
        read: proxy.connects
      }
    }
  const [answers, cutOff] = [
    (res: http.ServerResponse) => res.end('{}'),
    (res: http.ServerResponse) => res.socket?.destroy()
  ]
  const midAnswer = (res: http.ServerResponse): unknown =>
    res.writeHead(429, { 'X-Seen': 'yes' }).write('{', () => cutOff(res))
  const [CONNECT, FAILED] = [
    'could not connect to {host}: ',
    'the connection to {host} failed ({code})'
  ]
  const [UNRESOLVED, UNREACHABLE] = [
    `${CONNECT}the host name could not be resolved`,
    'could not reach {host} ({code})'
  ]
  const UNTRUSTED = `${CONNECT}its TLS certificate was not accepted ({code})`
  const REFUSED =
    "the proxy did not open a connection to {host}; it answered 502: check the proxy's rules for {host}, or set NO_PROXY for it"
  const SEEN = { status: 429, headers: { 'x-seen': 'yes' } }
  const [TUNNEL_80, TUNNEL_443] = [
    { read: ['api.discord.place:80'] },
    { read: ['api.discord.place:443'] }
  ]
  type More = { signal?: AbortSignal; delivered?: boolean; answered?: typeof SEEN; read?: string[] }

  it.each([
    {
      label: 'a refused connection',
      target: closedPort,
      code: 'ECONNREFUSED',
      message: `${CONNECT}the connection was refused`,
      more: {}
    },
    {
      label: 'a name not found',
      target: undefined,
      code: 'ENOTFOUND',
      message: UNRESOLVED,
      more: {}
    },
    {
      label: 'a name lookup to try again',
      target: undefined,
      code: 'EAI_AGAIN',
      message: UNRESOLVED,
      more: {}
    },
    {
      label: 'an unreachable host',
      target: undefined,
      code: 'EHOSTUNREACH',
      message: UNREACHABLE,
      more: {}
    },
    {
      label: 'an unreachable network',
      target: undefined,
      code: 'ENETUNREACH',
      message: UNREACHABLE,
      more: {}
    },
    {
      label: 'an EPROTO before the connection opens',
      target: undefined,
      code: 'EPROTO',
      message: FAILED,
      more: {}
    },
    {
      label: 'an error without a code',
      target: undefined,
      code: undefined,
      message: 'the connection to {host} failed (unknown error)',
      more: {}
    },
    {
      label: 'an untrusted certificate',
      target: reading(answers, true),
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      message: UNTRUSTED,
      more: {}
    },
    {
      label: 'a run already stopped: nothing sent, at once',
      target: reading(answers),
      code: 'ABORT_ERR',
      message: FAILED,
      more: { signal: AbortSignal.abort() }
    },
    {
      label: 'a drop once the server read it, unanswered',
      target: reading(cutOff),
      code: 'ECONNRESET',
      message: FAILED,
      more: { delivered: true }
    },
    {
      label: 'a drop mid-answer: its status and headers kept',
      target: reading(midAnswer),
      code: 'ECONNRESET',
      message: FAILED,
      more: { delivered: true, answered: SEEN }
    },
    {
      label: 'http_proxy takes http through the proxy, which refuses it',
      target: proxied('http_proxy'),
      code: 'ECONNRESET',
      message: REFUSED,
      more: TUNNEL_80
    },
    {
      label: 'HTTP_PROXY takes http through the proxy, which refuses it',
      target: proxied('HTTP_PROXY'),
      code: 'ECONNRESET',
      message: REFUSED,
      more: TUNNEL_80
    },
    {
      label: 'https_proxy takes https through the proxy, which refuses it',
      target: proxied('https_proxy'),
      code: 'ECONNRESET',
      message: REFUSED,
      more: TUNNEL_443
    },
    {
      label: 'HTTPS_PROXY takes https through the proxy, which refuses it',
      target: proxied('HTTPS_PROXY'),
      code: 'ECONNRESET',
      message: REFUSED,
      more: TUNNEL_443
    },
    {
      label: 'a proxy that asks for credentials (407)',
      target: proxied('HTTP_PROXY', 'Basic dXNlcjpwYXNz'),
      code: 'ECONNRESET',
      message:
        'the proxy did not open a connection to {host}; it asks for proxy authentication (407 Proxy Authentication Required): check the user name and password in HTTPS_PROXY or HTTP_PROXY (http://user:password@host:port)',
      more: TUNNEL_80
    }
  ])('$label', async ({ target, code, message, more }) => {
    const { signal, delivered = false, answered, read: seen }: More = more
    const { url, read } = await (target ?? lookup(code))()
    const failing = failure(send(patch(url, { signal })))
    if (signal) expect(await watch(failing)(), 'at once').toBe(true)
    const said = message.replaceAll('{host}', new URL(url).host).replace('{code}', String(code))
    expect(await failing).toMatchObject({
      name: 'NetworkError',
      code,
      delivered,
      answered,
      message: said
    })
    if (signal) await send(get(url))
    const sentBody = delivered ? [PATCH_BODY] : []
    const expected = seen ?? (signal ? [''] : sentBody)
    expect(
      read,
      'what the server read (after a stop, only the request after it), or the CONNECTs the proxy saw'
    ).toEqual(expected)
    if (signal)
      expect(
        getEventListeners(signal, 'abort'),
        'no listener left on a signal that had aborted'
      ).toHaveLength(0)
  })

  it('a failure on a reused TLS connection, or after a fresh handshake: maybe delivered', async () => {
    let requests = 0
    // The server reads the second and third requests, then drops their connections unanswered.
    const target = await serve(
      (req, res) => (++requests === 1 ? res.end('{}') : req.on('end', () => cutOff(res)).resume()),
      true
    )
    trustTestCa()
    await send(get(target.url))
    const reused = await failure(send(patch(target.url)))
    expect(
      [target.connections(), reused.delivered],
      'on the kept-alive connection, a reset may follow delivery'
    ).toEqual([1, true])
    const fresh = await failure(send(patch(target.url)))
    expect(
      [target.connections(), fresh.delivered],
      'on a fresh connection, sent once the handshake was done'
    ).toEqual([2, true])
  })
})

it('send through a proxy (via @actions/http-client): a tunnel through the proxy named when each request is made; NO_PROXY hosts and loopback go direct, kept alive', async () => {
  const { url, port, connections } = await serve((req, res) =>
    res.end(JSON.stringify({ path: req.url }))
  )
  const [first, second] = [
    await proxyFor({ 'api.discord.place:80': port }),
    await proxyFor({ 'api.discord.place:80': port })
  ]
  const path = async (to: string): Promise<unknown> =>
    ((await send(get(to))).json as { path: string }).path
  proxyEnv({ http_proxy: first.url, no_proxy: 'direct.test' })
  expect([
    await path('http://api.discord.place/1'),
    await path('http://api.discord.place/2')
  ]).toEqual(['/1', '/2'])
  process.env['http_proxy'] = second.url
  expect(await path('http://api.discord.place/3')).toBe('/3')
  const tunnels = [first.connects, second.connects]
  expect(tunnels, 'one tunnel per request, through the proxy named when it is made').toEqual([
    Array(2).fill('api.discord.place:80'),
    ['api.discord.place:80']
  ])
  const before = connections()
  lookups()
  expect([
    await path(`${url}/a`),
    await path(`${url}/b`),
    await path(`http://direct.test:${port}/c`)
  ]).toEqual(['/a', '/b', '/c'])
  expect(connections(), 'one kept-alive connection to loopback, one to the NO_PROXY host').toBe(
    before + 2
  )
  expect(tunnels.flat(), 'none of them through a proxy').toHaveLength(3)
})

describe('send: the deadline and a stop cut the exchange off, and close its connection', () => {
  /**
   * Where a case's exchange goes, when it is where the case cuts it, and when its connection (or
   * CONNECT) was seen closed.
   */
  type Case = () => Promise<{ url: string; ready: () => boolean; closed: () => Promise<unknown> }>
  /**
   * A server that reads the PATCH, then never answers, or with `answers` sends the head of an
   * answer whose body never ends.
   */
  async function reading(
    secure: boolean,
    answers = false
  ): Promise<Awaited<ReturnType<Case>> & { port: number }> {
    let [read, head, closed] = [false, false, Promise.resolve() as Promise<unknown>]
    const { url, port } = await serve(async (req, res) => {
      closed = new Promise(resolve => req.socket.once('close', resolve))
      read = (await text(req)) === PATCH_BODY
      if (answers) res.writeHead(200).write('{"success":')
    }, secure)
    if (secure) trustTestCa()
    // With `answers`, ready once the client has the head: Node's channel says so just before the
    // transport's handler runs.
    const onHead = (message: unknown): void => {
      if (
        (message as { request: http.ClientRequest }).request.getHeader('host') === new URL(url).host
      )
        head = true
    }
    subscribe('http.client.response.finish', onHead)
    afterTest(() => unsubscribe('http.client.response.finish', onHead))
    return { url, port, ready: () => read && (!answers || head), closed: () => closed }
  }
  /**
   * Through a proxy to a target (its port, and when it has what the case waits for), or to a proxy
   * that holds every CONNECT.
   */
  const tunnel =
    (
      scheme: 'http' | 'https',
      target?: () => Promise<{ port: number; ready: () => boolean }>
    ): Case =>
    async () => {
      const to = await target?.()
      const proxy = await proxyFor(
        to ? { [`api.discord.place:${scheme === 'https' ? 443 : 80}`]: to.port } : {}
      )
      proxy.hangConnects = to === undefined
      proxyEnv({ [`${scheme}_proxy`]: proxy.url })
      const ready = to?.ready ?? (() => proxy.connects.length === 1)
      return {
        url: `${scheme}://api.discord.place/bots/1/stats`,
        ready,
        closed: () => proxy.connectClosed[0]!
      }
    }
  /** A target that accepts TCP and never speaks TLS. */
  const silent = async (): Promise<{ port: number; ready: () => boolean }> => {
    let hello = false
    return { port: Number(new URL(await serveRaw(() => (hello = true))).port), ready: () => hello }
  }

  it.each([
    {
      label: 'a server that read the request and never answers',
      setup: () => reading(false),
      end: 'deadline',
      delivered: true,
      answered: undefined
    },
    {
      label: 'an answer whose body never ends',
      setup: () => reading(false, true),
      end: 'deadline',
      delivered: true,
      answered: 200
    },
    {
      label: 'a server that read the request',
      setup: () => reading(false),
      end: 'stop',
      delivered: true,
      answered: undefined
    },
    {
      label: 'a proxy that never answers CONNECT',
      setup: tunnel('https'),
      end: 'deadline',
      delivered: false,
      answered: undefined
    },
    {
      label: 'a proxy that holds the CONNECT',
      setup: tunnel('https'),
      end: 'stop',
      delivered: false,
      answered: undefined
    },
    {
      label: 'a tunnel to a server that never completes TLS',
      setup: tunnel('https', silent),
      end: 'deadline',
      delivered: false,
      answered: undefined
    },
    {
      label: 'a tunnel whose TLS handshake completed, the PATCH read',
      setup: tunnel('https', () => reading(true)),
      end: 'deadline',
      delivered: true,
      answered: undefined
    },
    {
      label: 'a tunnel to an http server that read the request',
      setup: tunnel('http', () => reading(false)),
      end: 'deadline',
      delivered: true,
      answered: undefined
    }
  ] as const)(
    '$label: cut off by the $end, delivered $delivered, answered $answered',
    async ({ setup, end, delivered, answered }) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      afterTest(() => vi.useRealTimers())
      proxyEnv({})
      const { url, ready, closed } = await setup()
      const stop = new AbortController()
      const failing = failure(send(patch(url, { timeoutMs: 300, signal: stop.signal })))
      const settled = watch(failing)
      // Polled every 5 ms (setInterval is never faked) until the exchange is where the case cuts
      // it.
      let poll: ReturnType<typeof setInterval> | undefined
      const there = new Promise<'there'>(
        resolve => (poll = setInterval(() => ready() && resolve('there'), 5))
      )
      expect(await Promise.race([there, guard(10_000)]).finally(() => clearInterval(poll))).toBe(
        'there'
      )
      if (end === 'deadline') vi.advanceTimersByTime(299)
      expect(await settled(), 'not cut off before the deadline or the stop').toBe(false)
      if (end === 'deadline') vi.advanceTimersByTime(1)
      else stop.abort()
      expect(await settled(), 'cut off at once').toBe(true)
      const error = await failing
      const code = end === 'deadline' ? 'ETIMEDOUT' : 'ABORT_ERR'
      expect({
        code: error.code,
        delivered: error.delivered,
        answered: error.answered?.status
      }).toEqual({ code, delivered, answered })
      if (end === 'deadline')
        expect(error.message).toBe(`no complete answer from ${new URL(url).host} within 0.3 s`)
      expect(
        await Promise.race([closed().then(() => 'closed'), guard(10_000)]),
        'not left to keep the process alive'
      ).toBe('closed')
      expect(
        getEventListeners(stop.signal, 'abort'),
        "no listener left on the run's signal"
      ).toHaveLength(0)
    }
  )
})

describe('retryAfterMs: the wait an answer asks for', () => {
  const answer = (
    status: number,
    headers: http.IncomingHttpHeaders,
    json?: unknown
  ): HttpAnswer => ({ ...empty(status), headers, json })
  const LIMITER_RESET_OFF = { limiterReset: false }

  it.each([
    [
      'retry_after in the body first',
      answer(429, { 'retry-after': '30', 'ratelimit-reset': '20' }, { retry_after: 60 }),
      60_000
    ],
    [
      'then Retry-After',
      answer(429, { 'retry-after': '30', 'ratelimit-reset': '20' }, { error: 'x' }),
      30_000
    ],
    ['then RateLimit-Reset on a 429', answer(429, { 'ratelimit-reset': '20' }), 20_000],
    [
      'RateLimit-Reset when the limiter is spent',
      answer(200, { 'ratelimit-remaining': ' 0 ', 'ratelimit-reset': '7' }),
      7_000
    ],
    [
      'no RateLimit-Reset while the limiter has room',
      answer(200, { 'ratelimit-remaining': '1', 'ratelimit-reset': '7' }),
      undefined
    ],
    [
      'no RateLimit-Reset on a 5xx: a backoff, not the window',
      answer(503, { 'ratelimit-reset': '1800' }),
      undefined
    ],
    ['Retry-After on a 5xx', answer(503, { 'retry-after': '5', 'ratelimit-reset': '1800' }), 5_000],
    ['a fraction of a second, rounded up', answer(429, { 'retry-after': '1.0005' }), 1_001],
    ['a figure with spaces', answer(429, { 'retry-after': ' 12 ' }), 12_000],
    ['a figure as a string in the body', answer(429, {}, { retry_after: '5' }), 5_000],
    ['zero', answer(429, { 'retry-after': '0' }), 0],
    ['a day at most', answer(429, { 'retry-after': '999999' }), 86_400_000],
    [
      'nothing negative: the next figure',
      answer(429, { 'retry-after': '9' }, { retry_after: -5 }),
      9_000
    ],
    [
      'nothing that is not a figure: the next one',
      answer(429, { 'retry-after': 'Wed, 21 Oct 2015', 'ratelimit-reset': '4' }),
      4_000
    ],
    [
      'nothing from a non-number in the body',
      answer(429, { 'retry-after': '3' }, { retry_after: 'soon' }),
      3_000
    ],
    ['nothing from an empty header', answer(429, { 'retry-after': '' }), undefined],
    [
      'nothing from a figure in another notation',
      answer(429, { 'retry-after': '1e3', 'ratelimit-reset': '0x10' }),
      undefined
    ],
    ['nothing infinite', answer(429, {}, { retry_after: Infinity }), undefined],
    ['nothing at all', answer(429, {}), undefined],
    [
      'no RateLimit-Reset when told so',
      answer(429, { 'ratelimit-reset': '20' }),
      undefined,
      LIMITER_RESET_OFF
    ],
    [
      'Retry-After still, when told so',
      answer(429, { 'ratelimit-reset': '20', 'retry-after': '2' }),
      2_000,
      LIMITER_RESET_OFF
    ]
  ])('%s', (_label, given, expected, options?: { limiterReset: boolean }) => {
    expect(retryAfterMs(given, options)).toBe(expected)
  })
})

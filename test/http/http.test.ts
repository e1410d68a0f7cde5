import { getEventListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import * as http from 'node:http'
import * as https from 'node:https'
import * as net from 'node:net'
import tls from 'node:tls'
import type { AddressInfo } from 'node:net'
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

/** The address of a real server on a free loopback port, closed when its test finishes. */
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

/** Writes each piece as a chunk of its own (a pause between them), then does `end`. */
function writeApart(socket: net.Socket, pieces: string[], end: 'destroy' | 'keep' = 'keep'): void {
  const [first, ...rest] = pieces
  if (first === undefined) {
    if (end === 'destroy') socket.destroy()
    return
  }
  socket.write(first, () => setTimeout(() => writeApart(socket, rest, end), 30))
}

/**
 * Settles with 'gave up' after `ms` of real time: the failure guard of a wait for an event, far
 * longer than the event takes. On the real setTimeout, taken as this file loads, which a test's
 * fake timers do not replace.
 */
const realSetTimeout = globalThis.setTimeout
function guard(ms: number): Promise<'gave up'> {
  return new Promise(resolve => realSetTimeout(() => resolve('gave up'), ms).unref())
}

/** A port that was just open and is now closed: connecting to it is refused. */
async function closedPort(): Promise<string> {
  const server = http.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>(resolve => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

const TEST_TLS = {
  key: readFileSync(new URL('../fixtures/tls/server-key.pem', import.meta.url)),
  cert: readFileSync(new URL('../fixtures/tls/server.pem', import.meta.url))
}

/** An https server on 127.0.0.1 with the test certificate (valid for 127.0.0.1 and api.discord.place). */
async function serveTls(handler: http.RequestListener): Promise<{ server: https.Server; url: string; port: number }> {
  const server = https.createServer(TEST_TLS, handler)
  const port = await listenForTest(server)
  return { server, url: `https://127.0.0.1:${port}`, port }
}

/**
 * Trusts the test CA in this process until the test finishes, as NODE_EXTRA_CA_CERTS does for a
 * run (Node reads that only at start-up): every TLS connection, direct or through a tunnel, is
 * made with `tls.connect`, which is given the CA.
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

/** Runs `send` expecting a NetworkError, and measures how long it took. */
async function expectNetworkError(request: HttpRequest): Promise<{ error: NetworkError; ms: number }> {
  const started = performance.now()
  const error: unknown = await send(request).then(
    () => undefined,
    (e: unknown) => e
  )
  const ms = performance.now() - started
  expect(error).toBeInstanceOf(NetworkError)
  return { error: error as NetworkError, ms }
}

/**
 * First in the file on purpose: the module keeps one connection pool per protocol, made by its
 * first request, so the pool this test reads is the one as made (not one an earlier test made).
 */
describe('send: the connection pool', () => {
  it('sends requests in a row on one connection, the next one sent as soon as an answer is read', async () => {
    const { url, connections } = await serveWith((_req, res) => res.end('{}'))
    const answer = await send(get(url))
    expect(answer.headers['connection']).toBe('keep-alive')
    await send(get(url))
    await send(get(url, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{}', idleMarginMs: 3_000 }))
    expect(connections(), 'one connection for three requests in a row').toBe(1)
  })
})

describe('send: answers', () => {
  it('parses a JSON answer', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
      res.end('{"success":true}')
    })
    const got = await send(get(`${url}/bots/123456789012345678/stats`))
    expect(got.status).toBe(200)
    expect(got.text).toBe('{"success":true}')
    expect(got.json).toEqual({ success: true })
    expect(got.truncated).toBe(false)
    expect(got.headers['content-type']).toBe('application/json; charset=utf-8')
  })

  it('parses a JSON error answer and keeps its status and headers', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(429, { 'Content-Type': 'application/json', 'RateLimit-Reset': '60', 'Retry-After': '60' })
      res.end(JSON.stringify({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 60 }))
    })
    const got = await send(get(url))
    expect(got.status).toBe(429)
    expect(got.json).toEqual({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 60 })
    expect(got.headers['ratelimit-reset']).toBe('60')
    expect(got.headers['retry-after']).toBe('60')
  })

  it.each([
    ['an HTML page', 'text/html', '<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>'],
    ['plain text', 'text/plain', 'Bad Gateway'],
    ['broken JSON', 'application/json', '{"success":tru'],
    ['an empty body', 'application/json', '']
  ])('leaves json undefined for %s', async (_label, type, body) => {
    const url = await serve((_req, res) => {
      res.writeHead(502, { 'Content-Type': type })
      res.end(body)
    })
    const got = await send(get(url))
    expect(got.status).toBe(502)
    expect(got.text).toBe(body)
    expect(got.json).toBeUndefined()
    expect(got.truncated).toBe(false)
  })

  it('keeps the bytes of a body that is not UTF-8, as they came', async () => {
    const bytes = Buffer.from('\ufeff[]', 'utf16le')
    const url = await serve((_req, res) => res.end(bytes))
    expect((await send(get(url))).bytes).toEqual(bytes)
  })

  it('reads a 204 without a body', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(204)
      res.end()
    })
    const got = await send(get(url))
    expect(got).toMatchObject({ status: 204, text: '', truncated: false, json: undefined })
  })
})

describe('send: body limit', () => {
  const LIMIT = 1_000

  it.each([
    [LIMIT - 1, false],
    [LIMIT, false],
    [LIMIT + 1, true],
    [LIMIT * 50, true]
  ])('a body of %d bytes with a limit of 1000 is truncated: %s', async (size, truncated) => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      res.end('x'.repeat(size))
    })
    const got = await send(get(url, { maxBodyBytes: LIMIT }))
    expect(got.truncated).toBe(truncated)
    expect(got.text.length).toBe(Math.min(size, LIMIT))
    expect(got.bytes?.length).toBe(Math.min(size, LIMIT))
  })

  it('returns promptly with the first bytes when the server never stops streaming', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' })
      const chunk = 'y'.repeat(16 * 1024)
      const timer = setInterval(() => res.write(chunk), 5)
      res.on('close', () => clearInterval(timer))
    })
    const started = performance.now()
    const got = await send(get(url, { maxBodyBytes: LIMIT, timeoutMs: 10_000 }))
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(got.truncated).toBe(true)
    expect(got.text).toBe('y'.repeat(LIMIT))
    expect(got.json).toBeUndefined()
  })

  it('does not parse a truncated JSON body', async () => {
    const big = JSON.stringify({ success: false, error: 'z'.repeat(5_000), status: 500 })
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'Content-Type': 'application/json' })
      res.end(big)
    })
    const got = await send(get(url, { maxBodyBytes: LIMIT }))
    expect(got.status).toBe(500)
    expect(got.truncated).toBe(true)
    expect(got.text).toBe(big.slice(0, LIMIT))
    expect(got.json).toBeUndefined()
  })

  it('keeps 64 KiB by default', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      res.end('w'.repeat(200 * 1024))
    })
    const got = await send(get(url))
    expect(got.truncated).toBe(true)
    expect(got.text.length).toBe(64 * 1024)
  })
})

describe('send: failures', () => {
  it('rejects with ETIMEDOUT within timeoutMs when the server never answers', async () => {
    const url = await serve(() => {
      /* reads the request, never answers */
    })
    const { error, ms } = await expectNetworkError(
      get(url, { method: 'PATCH', headers: { Authorization: KEY }, body: '{"command_count":14}', timeoutMs: 300 })
    )
    expect(error.code).toBe('ETIMEDOUT')
    expect(error.delivered).toBe(true)
    expect(ms).toBeGreaterThanOrEqual(280)
    expect(ms).toBeLessThan(1_500)
    expect(error.message).not.toContain(KEY)
  })

  it('rejects with ETIMEDOUT when the answer starts but its body never ends', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.write('{"success":')
    })
    const { error, ms } = await expectNetworkError(get(url, { timeoutMs: 300 }))
    expect(error.code).toBe('ETIMEDOUT')
    expect(error.delivered).toBe(true)
    expect(ms).toBeLessThan(1_500)
  })

  it('sends https after http in the same process (each protocol gets its own agent)', async () => {
    const plain = await serve((_, res) => res.end('{}'))
    expect((await send({ method: 'GET', url: plain, headers: {}, timeoutMs: 2_000 })).status).toBe(200)
    const tls = (await closedPort()).replace('http:', 'https:')
    const error = await send({ method: 'GET', url: tls, headers: {}, timeoutMs: 2_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).code).toBe('ECONNREFUSED')
  })

  it('rejects with delivered=false when the connection is refused', async () => {
    const url = await closedPort()
    const { error } = await expectNetworkError(
      get(`${url}/bots/123456789012345678/stats`, { method: 'PATCH', headers: { Authorization: KEY }, body: '{}' })
    )
    expect(error.code).toBe('ECONNREFUSED')
    expect(error.delivered).toBe(false)
    expect(error.name).toBe('NetworkError')
    expect(error.message).not.toContain(KEY)
  })

  it('rejects with delivered=true when the server drops the connection after reading the request', async () => {
    let received = ''
    const url = await serve(async (req, res) => {
      received = await readBody(req)
      res.socket?.destroy()
    })
    const { error } = await expectNetworkError(
      get(url, { method: 'PATCH', headers: { Authorization: KEY, 'Content-Type': 'application/json' }, body: '{"server_count":1260}' })
    )
    expect(received).toBe('{"server_count":1260}')
    expect(error.delivered).toBe(true)
    expect(error.code).not.toBe('ECONNREFUSED')
    expect(error.message).not.toContain(KEY)
  })

  it('rejects with delivered=true when the connection drops in the middle of the answer', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' })
      res.write('{"succ', () => res.socket?.destroy())
    })
    const { error } = await expectNetworkError(get(url))
    expect(error.delivered).toBe(true)
  })
})

describe('send: interim (1xx) answers are not the answer', () => {
  const EARLY_HINTS = 'HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n'
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n'
  const OK = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"success":true}'
  const patch = (url: string): HttpRequest =>
    get(`${url}/bots/123456789012345678/stats`, { method: 'PATCH', headers: { Authorization: KEY }, body: '{"server_count":1}' })

  it.each([
    ['103 Early Hints', EARLY_HINTS],
    ['100 Continue', CONTINUE],
    ['two 103 Early Hints', EARLY_HINTS + EARLY_HINTS]
  ])('a %s and then a dropped connection is unanswered (maybe delivered), not answered 1xx', async (_label, interim) => {
    const url = await serveRaw(socket => socket.write(interim, () => socket.destroy()))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered).toBeUndefined()
    expect(error.delivered).toBe(true)
  })

  it('a 103 Early Hints and a dropped connection, in chunks apart, is unanswered', async () => {
    const url = await serveRaw(socket => writeApart(socket, ['HTTP/1.1 10', '3 Early Hints\r\nLink: </x>\r\n', '\r\n'], 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered).toBeUndefined()
    expect(error.delivered).toBe(true)
  })

  it.each([
    ['in one chunk', [EARLY_HINTS + OK]],
    ['in chunks apart', [EARLY_HINTS, OK]],
    [
      'after a 100 Continue and a 103, each status line cut in two',
      [CONTINUE.slice(0, 12), CONTINUE.slice(12) + EARLY_HINTS.slice(0, 5), EARLY_HINTS.slice(5), OK.slice(0, 10), OK.slice(10)]
    ]
  ])('a 103 Early Hints and then a 200 gives the 200 (%s)', async (_label, pieces) => {
    const url = await serveRaw(socket => writeApart(socket, pieces))
    const answer = await send(patch(url))
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ success: true })
  })

  it.each([
    ['alone', ''],
    ['after a 103 Early Hints', EARLY_HINTS],
    ['after a 100 Continue in a chunk of its own', CONTINUE]
  ])('a final status line whose headers overflow the parser is the answer (%s)', async (_label, interim) => {
    const overflow = `HTTP/1.1 429 Too Many Requests\r\nX-Filler: ${'a'.repeat(100_000)}\r\n\r\n`
    const url = await serveRaw(socket => writeApart(socket, interim === '' ? [overflow] : [interim, overflow], 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered?.status).toBe(429)
    expect(error.delivered).toBe(true)
  })
})

describe('send: the request as sent', () => {
  interface Received {
    method: string | undefined
    url: string | undefined
    headers: http.IncomingHttpHeaders
    body: string
  }

  async function recorder(): Promise<{ url: string; received: Promise<Received> }> {
    let resolve!: (r: Received) => void
    const received = new Promise<Received>(r => (resolve = r))
    const url = await serve(async (req, res) => {
      const body = await readBody(req)
      resolve({ method: req.method, url: req.url, headers: req.headers, body })
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end('{"success":true}')
    })
    return { url, received }
  }

  it('sends the method, path, headers and body as given, with Content-Length', async () => {
    const { url, received } = await recorder()
    const body = '{"command_count":14,"server_count":1260}'
    await send({
      method: 'PATCH',
      url: `${url}/api/bots/123456789012345678/stats`,
      headers: { Authorization: KEY, 'Content-Type': 'application/json', 'User-Agent': 'discord-place-bot-stats/0.1.0' },
      body,
      timeoutMs: 5_000
    })
    const got = await received
    expect(got.method).toBe('PATCH')
    expect(got.url).toBe('/api/bots/123456789012345678/stats')
    expect(got.headers['authorization']).toBe(KEY)
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['user-agent']).toBe('discord-place-bot-stats/0.1.0')
    expect(got.headers['content-length']).toBe(String(body.length))
    expect(got.headers['transfer-encoding']).toBeUndefined()
    expect(got.body).toBe(body)
  })

  it('counts Content-Length in bytes for a non-ASCII body', async () => {
    const { url, received } = await recorder()
    const body = '{"note":"Überprüfung ✓"}'
    await send({ method: 'PATCH', url, headers: { 'Content-Type': 'application/json' }, body, timeoutMs: 5_000 })
    const got = await received
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)))
    expect(got.body).toBe(body)
  })

  it('sends a GET without a body', async () => {
    const { url, received } = await recorder()
    await send(get(`${url}/bots/123456789012345678`, { headers: { Accept: 'application/json' } }))
    const got = await received
    expect(got.method).toBe('GET')
    expect(got.url).toBe('/bots/123456789012345678')
    expect(got.headers['authorization']).toBeUndefined()
    expect(got.headers['accept']).toBe('application/json')
    expect(got.body).toBe('')
  })
})

describe('send: connections', () => {
  /**
   * A server that counts the TCP connections it accepts and keeps idle ones for
   * `keepAliveMs`, announcing it in `Keep-Alive: timeout=N` as Node's server does.
   */
  async function counting(
    keepAliveMs: number,
    handler: http.RequestListener = (_req, res) => res.end('{}')
  ): Promise<{ url: string; connections: () => number }> {
    const served = await serveWith(handler)
    served.server.keepAliveTimeout = keepAliveMs
    return served
  }
  const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))
  const patch = (url: string, extra: Partial<HttpRequest> = {}): HttpRequest =>
    get(url, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{}', idleMarginMs: 3_000, ...extra })

  it('opens one connection per request in flight, and reuses them afterwards', async () => {
    const server = await counting(5_000)
    await Promise.all([send(get(server.url)), send(get(server.url)), send(get(server.url))])
    await Promise.all([send(get(server.url)), send(get(server.url)), send(get(server.url))])
    expect(server.connections()).toBe(3)
  })

  it.each([
    // The server keeps idle connections 4 s: after 1.2 s idle, less than 3 s is left.
    ['sends the PATCH on a fresh connection when the reused one has idled within 3 s of the announced timeout', 4_000, 1_200, 'PATCH', 2],
    ['sends the PATCH on the reused connection when it has idled briefly', 5_000, 300, 'PATCH', 1],
    ['sends a read on a fresh connection within 1 s of the announced timeout', 2_000, 1_100, 'read', 2]
  ] as const)('%s', async (_, keepAliveMs, idleMs, second, connections) => {
    const server = await counting(keepAliveMs)
    await send(get(server.url))
    await sleep(idleMs)
    await send(second === 'PATCH' ? patch(server.url) : get(server.url))
    expect(server.connections(), `the ${second} after ${idleMs} ms idle of a ${keepAliveMs} ms keep-alive`).toBe(connections)
    // A read right after that reuses the connection the second request took: its idle time is short.
    await send(get(server.url))
    expect(server.connections()).toBe(connections)
  })

  it('counts a failure on a reused connection as maybe delivered', async () => {
    let requests = 0
    const server = await counting(5_000, (req, res) => {
      requests += 1
      // The server reads the second request, then drops the connection unanswered.
      if (requests === 2) req.on('end', () => res.socket?.destroy()).resume()
      else res.end('{}')
    })
    await send(get(server.url))
    const { error } = await expectNetworkError(patch(server.url))
    expect(server.connections()).toBe(1)
    expect(error.delivered, 'a reset on a reused connection may follow delivery').toBe(true)
  })
})

describe('send: https connections', () => {
  it('counts a failure on a reused TLS connection as maybe delivered, and one after a fresh handshake too', async () => {
    let requests = 0
    let connections = 0
    const target = await serveTls((req, res) => {
      requests += 1
      // The server reads the second and third requests, then drops their connections unanswered.
      if (requests === 1) res.end('{}')
      else req.on('end', () => res.socket?.destroy()).resume()
    })
    target.server.on('secureConnection', () => (connections += 1))
    trustTestCa()
    await send(get(target.url))
    const reused = await expectNetworkError(get(target.url, { method: 'PATCH', body: '{}', idleMarginMs: 3_000 }))
    expect(connections, 'the PATCH went on the kept-alive connection').toBe(1)
    expect(reused.error.delivered, 'a reset on a reused connection may follow delivery').toBe(true)
    const fresh = await expectNetworkError(get(target.url, { method: 'PATCH', body: '{}' }))
    expect(connections, 'the next PATCH opened a fresh connection').toBe(2)
    expect(fresh.error.delivered, 'sent once the handshake was done: it may have been read').toBe(true)
  })
})

describe('send: the idle timeout a server announces', () => {
  /**
   * A server that keeps idle connections open (it closes none itself) and announces `keepAlive`
   * in its `Keep-Alive` header, or nothing; it counts the connections it accepts.
   */
  async function announcing(keepAlive: string | undefined): Promise<{ url: string; connections: () => number }> {
    const served = await serveWith((_req, res) => {
      res.writeHead(200, keepAlive === undefined ? {} : { 'Keep-Alive': keepAlive })
      res.end('{}')
    })
    served.server.keepAliveTimeout = 0
    return served
  }
  const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

  /** Two requests `idleMs` apart with `idleMarginMs`: how many connections they took. */
  async function connectionsFor(keepAlive: string | undefined, idleMs: number, idleMarginMs: number): Promise<number> {
    const server = await announcing(keepAlive)
    const first = await send(get(server.url, { idleMarginMs }))
    expect(first.headers['keep-alive']).toBe(keepAlive)
    await sleep(idleMs)
    await send(get(server.url, { idleMarginMs }))
    return server.connections()
  }

  it.each([
    ['timeout=3', 100, 2_500, 1],
    ['timeout=3', 600, 2_500, 2],
    ['max=100, timeout=3', 600, 2_500, 2],
    ['max=100,timeout=3', 600, 2_500, 2],
    ['Timeout=3', 600, 2_500, 2],
    ['timeout=10', 100, 9_500, 1]
  ])('Keep-Alive: %s, idle %d ms with a margin of %d ms: %d connection(s)', async (header, idleMs, marginMs, expected) => {
    expect(await connectionsFor(header, idleMs, marginMs)).toBe(expected)
  })

  it("assumes the service's 5 s when the server announces no timeout", async () => {
    // 5 s less a margin of 4.7 s leaves 300 ms of idle time for a reuse.
    expect(await connectionsFor(undefined, 50, 4_700)).toBe(1)
    expect(await connectionsFor(undefined, 450, 4_700)).toBe(2)
  })

  it('never hands the next request a tired connection, even one freed after a connection still fresh', async () => {
    // Two connections at once. The first answer read announces 60 s; the second, freed after
    // it (last in the pool, the one the pool gives next), announces 2 s: within a PATCH's 3 s
    // margin, so it is closed before the PATCH goes.
    let release!: () => void
    const held = new Promise<void>(resolve => (release = resolve))
    const bodies: string[] = []
    const served = await serveWith(async (req, res) => {
      bodies.push(await readBody(req))
      if (req.url === '/short') await held
      res.writeHead(200, { 'Keep-Alive': req.url === '/short' ? 'timeout=2' : 'timeout=60' })
      res.end(JSON.stringify({ path: req.url }))
    })
    served.server.keepAliveTimeout = 0
    const short = send(get(`${served.url}/short`))
    await send(get(`${served.url}/long`))
    release()
    await short
    expect(served.connections()).toBe(2)
    const answer = await send(get(`${served.url}/stats`, { method: 'PATCH', body: '{"server_count":1}', idleMarginMs: 3_000 }))
    expect(answer.json, 'the PATCH was answered, not failed on the closed connection').toEqual({ path: '/stats' })
    expect(bodies.at(-1)).toBe('{"server_count":1}')
    expect(served.connections(), 'it went on the connection still fresh').toBe(2)
  })
})

describe('send: what the server may have received', () => {
  it('counts a timeout on a connection that never opened as undelivered', async () => {
    // A TCP server that accepts and never speaks TLS: the request cannot have been sent.
    const url = (await serveRaw(() => undefined)).replace('http:', 'https:')
    const { error, ms } = await expectNetworkError(get(url, { method: 'PATCH', body: '{}', timeoutMs: 200 }))
    expect(error.code).toBe('ETIMEDOUT')
    expect(error.delivered).toBe(false)
    expect(error.message).toBe(`no complete answer from ${new URL(url).host} within 0.2 s`)
    expect(ms).toBeLessThan(1_500)
  })

  it('counts a certificate the runner does not trust as undelivered, and names the reason', async () => {
    const tls = {
      key: readFileSync(new URL('../fixtures/tls/server-key.pem', import.meta.url)),
      cert: readFileSync(new URL('../fixtures/tls/server.pem', import.meta.url))
    }
    let requests = 0
    const server = https.createServer(tls, (_req, res) => {
      requests += 1
      res.end('{}')
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/bots/1/stats`
      const { error } = await expectNetworkError(get(url, { method: 'PATCH', headers: { Authorization: KEY }, body: '{}' }))
      expect(error.delivered).toBe(false)
      expect(error.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE')
      expect(error.message).toBe(
        `could not connect to 127.0.0.1:${(server.address() as AddressInfo).port}: its TLS certificate was not accepted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`
      )
      expect(requests).toBe(0)
    } finally {
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
    }
  })

  it('says that the connection was refused', async () => {
    const url = await closedPort()
    const { error } = await expectNetworkError(get(url))
    expect(error.message).toBe(`could not connect to ${new URL(url).host}: the connection was refused`)
  })

  it.each([
    ['ENOTFOUND', 'could not connect to api.discord.place: the host name could not be resolved', false],
    ['EAI_AGAIN', 'could not connect to api.discord.place: the host name could not be resolved', false],
    ['EHOSTUNREACH', 'could not reach api.discord.place (EHOSTUNREACH)', false],
    ['ENETUNREACH', 'could not reach api.discord.place (ENETUNREACH)', false],
    ['EPROTO', 'the connection to api.discord.place failed (EPROTO)', false],
    [undefined, 'the connection to api.discord.place failed (unknown error)', false]
  ])('a %s before the connection opens is undelivered: %s', async (code, message, delivered) => {
    // The failure comes from the name lookup, while the socket is still connecting.
    const original = http.Agent.prototype.createConnection
    const spy = vi.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(function (this: http.Agent, options, callback) {
      const lookup: net.LookupFunction = (_host, _options, done) =>
        process.nextTick(() => done(Object.assign(new Error('lookup failed'), code === undefined ? {} : { code }), '', 4))
      return original.call(this, { ...options, lookup } as typeof options, callback)
    })
    try {
      const { error } = await expectNetworkError(get('http://api.discord.place/bots/1', { headers: { Authorization: KEY } }))
      expect(error.code).toBe(code)
      expect(error.message).toBe(message)
      expect(error.delivered).toBe(delivered)
    } finally {
      spy.mockRestore()
    }
  })

  it('keeps the status and headers of an answer whose body was cut off: the server answered', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(429, { 'Content-Type': 'application/json', 'Content-Length': '100', 'X-Seen': 'yes' })
      res.write('{"succ', () => res.socket?.destroy())
    })
    const { error } = await expectNetworkError(get(url, { method: 'PATCH', body: '{}' }))
    expect(error.delivered).toBe(true)
    expect(error.answered?.status).toBe(429)
    expect(error.answered?.headers['x-seen']).toBe('yes')
    expect(error.code).toBe('ECONNRESET')
    expect(error.message).toBe(`the connection to ${new URL(url).host} failed (ECONNRESET)`)
  })

  it('keeps no answer on a failure before any status line', async () => {
    const url = await serveRaw(socket => socket.destroy())
    const { error } = await expectNetworkError(get(url, { method: 'PATCH', body: '{}' }))
    expect(error.answered).toBeUndefined()
    expect(error.delivered).toBe(true)
  })
})

describe('send: status lines read as they arrive', () => {
  const patch = (url: string): HttpRequest => get(url, { method: 'PATCH', headers: { Authorization: KEY }, body: '{}' })
  const overflowing = (statusLine: string): string => `${statusLine}\r\nX-Filler: ${'a'.repeat(100_000)}\r\n\r\n`

  it.each([
    ['a 200', 'HTTP/1.1 200 OK', 200],
    ['an HTTP/1.0 500', 'HTTP/1.0 500 Internal Server Error', 500],
    ['an HTTP/1 201', 'HTTP/1 201 Created', 201]
  ])('%s whose headers overflow the parser is the answer', async (_label, statusLine, status) => {
    const url = await serveRaw(socket => writeApart(socket, [overflowing(statusLine)], 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered?.status).toBe(status)
    expect(error.delivered).toBe(true)
  })

  it('a 103 with a long header line, cut across chunks, then an overflowing 201: the 201 is the answer', async () => {
    const interim = `HTTP/1.1 103 Early Hints\r\nLink: <${'x'.repeat(300)}>; rel=preload\r\n\r\n`
    const url = await serveRaw(socket =>
      writeApart(socket, [interim.slice(0, 40), interim.slice(40), overflowing('HTTP/1.1 201 Created')], 'destroy')
    )
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered?.status).toBe(201)
  })

  it('a 103 whose own headers overflow the parser is still no answer', async () => {
    const url = await serveRaw(socket => writeApart(socket, [overflowing('HTTP/1.1 103 Early Hints')], 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered).toBeUndefined()
    expect(error.delivered).toBe(true)
  })

  it('a status line whose own reason phrase overflows the parser is the answer: its start is read before its end comes', async () => {
    const url = await serveRaw(socket => writeApart(socket, [`HTTP/1.1 429 ${'Too Many Requests '.repeat(6_000)}\r\n\r\n`], 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered?.status).toBe(429)
    expect(error.delivered).toBe(true)
  })

  it('a status line in chunks of a few bytes each is read whole', async () => {
    const text = overflowing('HTTP/1.1 409 Conflict')
    const pieces = [text.slice(0, 3), text.slice(3, 7), text.slice(7, 11), text.slice(11, 14), text.slice(14)]
    const url = await serveRaw(socket => writeApart(socket, pieces, 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered?.status).toBe(409)
  })

  it('a 103 and an overflowing 429 in one chunk: the 429, on the line after the 103, is the answer', async () => {
    const url = await serveRaw(socket =>
      writeApart(socket, ['HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n' + overflowing('HTTP/1.1 429 Too Many Requests')], 'destroy')
    )
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered?.status).toBe(429)
  })

  it.each([
    ['an empty reason phrase', 'HTTP/1.1 429 '],
    ['no reason phrase', 'HTTP/1.1 429']
  ])('a status line shorter than the start read (%s) is read at its end', async (_label, statusLine) => {
    const url = await serveRaw(socket => writeApart(socket, [overflowing(statusLine)], 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered?.status).toBe(429)
    expect(error.delivered).toBe(true)
  })

  it('a header line that looks like a status line is not one', async () => {
    // Only the start of a line is a status line; a 1xx answer's header that says 200 is not the answer.
    const interim = 'HTTP/1.1 103 Early Hints\r\nX: HTTP/1.1 200 OK\r\n\r\n'
    const url = await serveRaw(socket => writeApart(socket, [interim], 'destroy'))
    const { error } = await expectNetworkError(patch(url))
    expect(error.answered).toBeUndefined()
  })
})

describe('send: a stop', () => {
  it('sends nothing when the signal has already aborted, and says the request was not delivered', async () => {
    let requests = 0
    const url = await serve((_req, res) => {
      requests += 1
      res.end('{}')
    })
    const signal = AbortSignal.abort()
    const { error, ms } = await expectNetworkError(get(url, { method: 'PATCH', body: '{}', signal }))
    expect(error.code).toBe('ABORT_ERR')
    expect(error.delivered).toBe(false)
    expect(ms).toBeLessThan(500)
    expect(getEventListeners(signal, 'abort'), 'no listener left on a signal that had aborted').toHaveLength(0)
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(requests).toBe(0)
  })

  it('cuts off an exchange in flight at once, as maybe delivered', async () => {
    let received!: () => void
    const arrived = new Promise<void>(resolve => (received = resolve))
    const url = await serve(req => {
      req.resume()
      received()
    })
    const stop = new AbortController()
    void arrived.then(() => stop.abort())
    const { error, ms } = await expectNetworkError(get(url, { method: 'PATCH', body: '{}', signal: stop.signal, timeoutMs: 5_000 }))
    expect(error.code).toBe('ABORT_ERR')
    expect(error.delivered).toBe(true)
    expect(ms).toBeLessThan(2_000)
  })

  it('leaves no listener on a signal shared by many exchanges', async () => {
    const url = await serve((_req, res) => res.end('{}'))
    const stop = new AbortController()
    for (let i = 0; i < 5; i++) await send(get(url, { signal: stop.signal }))
    await new Promise(resolve => setTimeout(resolve, 20))
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0)
  })
})

describe('send: a body over the limit', () => {
  it('closes the connection instead of reading the rest, and the next request opens a fresh one', async () => {
    let seenClosed!: () => void
    const closed = new Promise<'closed'>(resolve => (seenClosed = () => resolve('closed')))
    const { url, connections } = await serveWith((req, res) => {
      if (req.url === '/endless') {
        res.writeHead(200, { 'Content-Type': 'text/plain' })
        const timer = setInterval(() => res.write('z'.repeat(4096)), 5)
        res.on('close', () => {
          clearInterval(timer)
          seenClosed()
        })
      } else res.end('{}')
    })
    const got = await send(get(`${url}/endless`, { maxBodyBytes: 100 }))
    expect(got.truncated).toBe(true)
    expect(got.text).toBe('z'.repeat(100))
    // The endless answer goes on until the client closes the connection: the server sees that
    // close, or (the guard, far longer than any close takes) the test gives up waiting.
    expect(await Promise.race([closed, guard(10_000)]), 'the server saw the connection closed').toBe('closed')
    await send(get(url))
    expect(connections()).toBe(2)
  })

  it('parses a JSON body that starts after white space, and an array', async () => {
    const url = await serve((req, res) => res.end(req.url === '/a' ? ' \n[1,2]' : '\t{"a":1}'))
    expect((await send(get(`${url}/a`))).json).toEqual([1, 2])
    expect((await send(get(`${url}/o`))).json).toEqual({ a: 1 })
  })

  it('leaves json undefined for a JSON scalar or text that merely contains JSON', async () => {
    const bodies: Record<string, string> = { '/n': '42', '/t': 'error: {"a":1}', '/s': '"{\\"a\\":1}"' }
    const url = await serve((req, res) => res.end(bodies[req.url ?? '']))
    expect((await send(get(`${url}/n`))).json).toBeUndefined()
    expect((await send(get(`${url}/t`))).json).toBeUndefined()
    const string = await send(get(`${url}/s`))
    expect(string.text, 'a JSON string that holds an object').toBe('"{\\"a\\":1}"')
    expect(string.json).toBeUndefined()
  })
})

describe('send: through a proxy (HTTP_PROXY, via @actions/http-client)', () => {
  const names = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'] as const
  let saved: Record<string, string | undefined> = {}

  /** A forward proxy with these routes, closed when the test finishes. */
  async function proxyFor(map: Record<string, number> = {}): Promise<ForwardProxy> {
    const proxy = await ForwardProxy.start(map)
    afterTest(() => proxy.close())
    return proxy
  }

  async function withProxy<T>(env: Partial<Record<(typeof names)[number], string>>, run: () => Promise<T>): Promise<T> {
    saved = Object.fromEntries(names.map(name => [name, process.env[name]]))
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

  it('tunnels to the service through the proxy, refuses as undelivered what the proxy refuses, and goes direct to loopback', async () => {
    const url = await serve((req, res) => res.end(JSON.stringify({ path: req.url })))
    const port = Number(new URL(url).port)
    const proxy = await proxyFor({ 'api.discord.place:80': port })
    await withProxy({ http_proxy: proxy.url }, async () => {
      const got = await send(get('http://api.discord.place/bots/1'))
      expect(got.json).toEqual({ path: '/bots/1' })
      expect(proxy.connects).toEqual(['api.discord.place:80'])

      // Loopback is never sent through a proxy, and fails as a direct connection does.
      expect((await send(get(`${url}/direct`))).json).toEqual({ path: '/direct' })
      const direct = await expectNetworkError(get(await closedPort()))
      expect(direct.error.code).toBe('ECONNREFUSED')
      expect(proxy.connects).toEqual(['api.discord.place:80'])

      const unmapped = await expectNetworkError(get('http://discord.com/api/v10/applications/@me', { headers: { Authorization: KEY } }))
      expect(unmapped.error.delivered).toBe(false)
      expect(unmapped.error.message).toBe(
        "the proxy did not open a connection to discord.com; it answered 502: check the proxy's rules for discord.com, or set NO_PROXY for it"
      )
      expect(unmapped.error.message).not.toContain(KEY)

      proxy.requireAuthorization = 'Basic dXNlcjpwYXNz'
      const refused = await expectNetworkError(get('http://api.discord.place/bots/1', { method: 'PATCH', body: '{}' }))
      expect(refused.error.delivered).toBe(false)
      expect(refused.error.message).toBe(
        'the proxy did not open a connection to api.discord.place; it asks for proxy authentication (407 Proxy Authentication Required): check the user name and password in HTTPS_PROXY or HTTP_PROXY (http://user:password@host:port)'
      )
    })
  })

  it.each([['http_proxy'], ['HTTP_PROXY']] as const)(
    'sends http through %s, to whichever proxy it names when the request is made',
    async name => {
      const url = await serve((req, res) => res.end(JSON.stringify({ path: req.url })))
      const map = { 'api.discord.place:80': Number(new URL(url).port) }
      const [first, second] = [await proxyFor(map), await proxyFor(map)]
      await withProxy({ [name]: first.url }, async () => {
        expect((await send(get('http://api.discord.place/bots/1'))).json).toEqual({ path: '/bots/1' })
        expect((await send(get('http://api.discord.place/bots/2'))).json).toEqual({ path: '/bots/2' })
      })
      // A tunnel closes when no request waits for it: each request has its own.
      expect(first.connects).toEqual(['api.discord.place:80', 'api.discord.place:80'])
      await withProxy({ [name]: second.url }, async () => {
        expect((await send(get('http://api.discord.place/bots/3'))).json).toEqual({ path: '/bots/3' })
      })
      expect(second.connects, 'the proxy named when the request is made').toEqual(['api.discord.place:80'])
      expect(first.connects).toHaveLength(2)
    }
  )

  it.each([['https_proxy'], ['HTTPS_PROXY']] as const)('sends https through %s', async name => {
    const proxy = await proxyFor({})
    // The proxy refuses the unmapped target: what is asserted is that the request went to it.
    await withProxy({ [name]: proxy.url }, () => expectNetworkError(get('https://api.discord.place/bots/1')))
    expect(proxy.connects).toEqual(['api.discord.place:443'])
  })

  describe('a tunnel that does not open: cut off at the deadline or the stop, as undelivered, its CONNECT closed', () => {
    const PATCH = { method: 'PATCH', headers: { Authorization: KEY }, body: '{"command_count":14}' } as const
    /**
     * 'closed' once the proxy saw the client close the connection of its first CONNECT. Nothing
     * but the client closes it before the proxy itself is closed, so a CONNECT left open (one
     * that would keep the process alive) is never seen closed: the guard gives up on it.
     */
    const connectClosed = (proxy: ForwardProxy): Promise<'closed' | 'gave up'> =>
      Promise.race([proxy.connectClosed[0]!.then(() => 'closed' as const), guard(10_000)])

    /**
     * The exchanges' deadlines run on a fake clock until the test ends (vitest's fake setTimeout
     * and clearTimeout; the sockets' own timers are Node's, untouched): a deadline fires when
     * the test moves that clock on, at a known point of the exchange (the proxy holds the
     * CONNECT, the server has the request), however long a loaded machine took to get there.
     */
    function deadlinesOnTestClock(): void {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      afterTest(() => vi.useRealTimers())
    }

    /** Resolves once `ready()` holds, polled every 5 ms (setInterval is never faked); fails after the guard. */
    async function until(ready: () => boolean, what: string): Promise<void> {
      let poll: ReturnType<typeof setInterval> | undefined
      const held = new Promise<'held'>(resolve => {
        poll = setInterval(() => ready() && resolve('held'), 5)
      })
      const got = await Promise.race([held, guard(10_000)])
      clearInterval(poll)
      expect(got, what).toBe('held')
    }

    /** Whether `promise` has settled, read after a turn of the event loop (setImmediate is never faked). */
    function watch(promise: Promise<unknown>): () => Promise<boolean> {
      let settled = false
      void promise.then(
        () => (settled = true),
        () => (settled = true)
      )
      return async () => {
        await new Promise(resolve => setImmediate(resolve))
        return settled
      }
    }

    it('a proxy that never answers CONNECT: ETIMEDOUT at timeoutMs, nothing delivered, the CONNECT connection closed', async () => {
      const proxy = await proxyFor({})
      proxy.hangConnects = true
      const stop = new AbortController()
      deadlinesOnTestClock()
      await withProxy({ HTTPS_PROXY: proxy.url }, async () => {
        const failing = expectNetworkError(get('https://api.discord.place/bots/1/stats', { ...PATCH, timeoutMs: 300, signal: stop.signal }))
        const settled = watch(failing)
        await until(() => proxy.connects.length === 1, 'the proxy holds the CONNECT')
        vi.advanceTimersByTime(299)
        expect(await settled(), 'not cut off before timeoutMs').toBe(false)
        vi.advanceTimersByTime(1)
        expect(await settled(), 'cut off at timeoutMs').toBe(true)
        const { error } = await failing
        expect(error.code).toBe('ETIMEDOUT')
        expect(error.delivered, 'a CONNECT never answered: nothing reached the service').toBe(false)
        expect(error.message).toBe('no complete answer from api.discord.place within 0.3 s')
        expect(proxy.connects).toEqual(['api.discord.place:443'])
        expect(await connectClosed(proxy), 'the CONNECT request is destroyed with the exchange, not left to keep the process alive').toBe(
          'closed'
        )
        expect(getEventListeners(stop.signal, 'abort'), 'no listener left on the run’s signal').toHaveLength(0)
      })
    })

    it('a stop while the proxy holds the CONNECT: ABORT_ERR at once, nothing delivered, the CONNECT connection closed', async () => {
      const proxy = await proxyFor({})
      proxy.hangConnects = true
      const stop = new AbortController()
      // The deadline never fires on its own: only the stop can end the exchange.
      deadlinesOnTestClock()
      await withProxy({ HTTPS_PROXY: proxy.url }, async () => {
        const failing = expectNetworkError(
          get('https://api.discord.place/bots/1/stats', { ...PATCH, timeoutMs: 5_000, signal: stop.signal })
        )
        const settled = watch(failing)
        await until(() => proxy.connects.length === 1, 'the proxy holds the CONNECT')
        expect(await settled(), 'still waiting for the proxy').toBe(false)
        stop.abort()
        expect(await settled(), 'cut off by the stop at once').toBe(true)
        const { error } = await failing
        expect(error.code).toBe('ABORT_ERR')
        expect(error.delivered, 'a CONNECT never answered: nothing reached the service').toBe(false)
        expect(await connectClosed(proxy), 'the CONNECT request is destroyed with the exchange').toBe('closed')
      })
    })

    it('a tunnel opened to a server that never completes TLS: ETIMEDOUT, nothing delivered, the tunnel closed', async () => {
      // The proxy answers 200 to CONNECT; the target accepts TCP and never speaks TLS.
      let helloArrived = false
      const silent = Number(new URL(await serveRaw(() => (helloArrived = true))).port)
      const proxy = await proxyFor({ 'api.discord.place:443': silent })
      deadlinesOnTestClock()
      await withProxy({ HTTPS_PROXY: proxy.url }, async () => {
        const failing = expectNetworkError(get('https://api.discord.place/bots/1/stats', { ...PATCH, timeoutMs: 300 }))
        const settled = watch(failing)
        // The deadline comes once the client's TLS hello has come through the tunnel: the tunnel is open, TLS is not.
        await until(() => helloArrived, 'the target has the TLS hello')
        vi.advanceTimersByTime(300)
        expect(await settled(), 'cut off at timeoutMs').toBe(true)
        const { error } = await failing
        expect(error.code).toBe('ETIMEDOUT')
        expect(error.delivered, 'no TLS handshake through the tunnel: the request was never sent').toBe(false)
        expect(await connectClosed(proxy), 'the tunnel is closed with the exchange').toBe('closed')
      })
    })

    it('a tunnel whose TLS handshake completed: a PATCH cut off after it was sent may have been delivered', async () => {
      let received: string | undefined
      const target = await serveTls(async req => {
        received = await readBody(req)
      })
      const proxy = await proxyFor({ 'api.discord.place:443': target.port })
      trustTestCa()
      deadlinesOnTestClock()
      await withProxy({ HTTPS_PROXY: proxy.url }, async () => {
        const failing = expectNetworkError(get('https://api.discord.place/bots/1/stats', { ...PATCH, timeoutMs: 500 }))
        const settled = watch(failing)
        // The deadline comes once the service has read the PATCH.
        await until(() => received !== undefined, 'the service read the PATCH')
        vi.advanceTimersByTime(500)
        expect(await settled(), 'cut off at timeoutMs').toBe(true)
        const { error } = await failing
        expect(error.code).toBe('ETIMEDOUT')
        expect(received, 'the service read the PATCH').toBe(PATCH.body)
        expect(error.delivered, 'sent through the tunnel once TLS was up: it may have been read').toBe(true)
      })
    })

    it('a tunnel opened to an http server that never answers: ETIMEDOUT, maybe delivered (the request went through)', async () => {
      let received: string | undefined
      const url = await serve(async req => {
        received = await readBody(req)
      })
      const proxy = await proxyFor({ 'api.discord.place:80': Number(new URL(url).port) })
      deadlinesOnTestClock()
      await withProxy({ HTTP_PROXY: proxy.url }, async () => {
        const failing = expectNetworkError(get('http://api.discord.place/bots/1/stats', { ...PATCH, timeoutMs: 300 }))
        const settled = watch(failing)
        // The deadline comes once the server has read the request.
        await until(() => received !== undefined, 'the server read the request')
        vi.advanceTimersByTime(300)
        expect(await settled(), 'cut off at timeoutMs').toBe(true)
        const { error } = await failing
        expect(error.code).toBe('ETIMEDOUT')
        expect(received).toBe(PATCH.body)
        expect(error.delivered, 'the request went through the open tunnel: it may have been read').toBe(true)
      })
    })
  })

  it('sends loopback requests direct on the kept-alive connections when a proxy is set', async () => {
    const proxy = await proxyFor({})
    const { url, connections } = await serveWith((req, res) => res.end(JSON.stringify({ path: req.url })))
    await withProxy({ HTTP_PROXY: proxy.url }, async () => {
      expect((await send(get(`${url}/a`))).json).toEqual({ path: '/a' })
      expect((await send(get(`${url}/b`))).json).toEqual({ path: '/b' })
    })
    expect(proxy.connects).toEqual([])
    expect(proxy.requests).toEqual([])
    expect(connections(), 'the second request went on the connection the first one opened').toBe(1)
  })

  it('goes direct when only the other protocol has a proxy', async () => {
    const proxy = await proxyFor({})
    const url = await serve((_req, res) => res.end('{}'))
    await withProxy({ HTTPS_PROXY: proxy.url, https_proxy: proxy.url }, async () => {
      expect((await send(get(url))).status).toBe(200)
    })
    expect(proxy.connects).toEqual([])
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
    ['Retry-After when the body has none', answer(429, { 'retry-after': '30', 'ratelimit-reset': '20' }, { error: 'x' }), 30_000],
    ['RateLimit-Reset on a 429 without either', answer(429, { 'ratelimit-reset': '20' }), 20_000],
    ['RateLimit-Reset when the limiter is spent', answer(200, { 'ratelimit-remaining': ' 0 ', 'ratelimit-reset': '7' }), 7_000],
    [
      'nothing from RateLimit-Reset while the limiter has room',
      answer(200, { 'ratelimit-remaining': '1', 'ratelimit-reset': '7' }),
      undefined
    ],
    ['nothing from RateLimit-Reset on a 5xx', answer(503, { 'ratelimit-reset': '7' }), undefined],
    ['a fraction of a second, rounded up', answer(429, { 'retry-after': '1.0005' }), 1_001],
    ['a figure with spaces', answer(429, { 'retry-after': ' 12 ' }), 12_000],
    ['a figure as a string in the body', answer(429, {}, { retry_after: '5' }), 5_000],
    ['zero', answer(429, { 'retry-after': '0' }), 0],
    ['a day at most', answer(429, { 'retry-after': '999999' }), 86_400_000],
    ['nothing negative: the next figure', answer(429, { 'retry-after': '9' }, { retry_after: -5 }), 9_000],
    [
      'nothing that is not a figure: the next one',
      answer(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT', 'ratelimit-reset': '4' }),
      4_000
    ],
    ['nothing from a non-number in the body', answer(429, { 'retry-after': '3' }, { retry_after: 'soon' }), 3_000],
    ['nothing from an empty header', answer(429, { 'retry-after': '' }), undefined],
    ['nothing from a figure in another notation', answer(429, { 'retry-after': '1e3', 'ratelimit-reset': '0x10' }), undefined],
    ['nothing infinite', answer(429, {}, { retry_after: Infinity }), undefined],
    ['nothing at all', answer(429, {}), undefined]
  ])('%s', (_label, given, expected) => {
    expect(retryAfterMs(given)).toBe(expected)
  })

  /** The request limiter's 429 as the service words it, with these fields beside its own, and these headers. */
  const tooMany = (body: Record<string, unknown>, headers: http.IncomingHttpHeaders = {}): HttpAnswer =>
    answer(429, headers, { success: false, error: 'Too many requests, please try again later.', status: 429, ...body })
  /** A 429 whose body is not JSON. */
  const plain429 = (headers: http.IncomingHttpHeaders = {}): HttpAnswer => ({ ...answer(429, headers), text: 'Too Many Requests' })

  it.each([
    ['retry_after in the body', tooMany({ retry_after: 60 }), 60_000],
    ['a fractional retry_after', tooMany({ retry_after: 1.5 }), 1_500],
    ['retry_after 0', tooMany({ retry_after: 0 }), 0],
    ['a Retry-After header', tooMany({}, { 'retry-after': '120' }), 120_000],
    ['a RateLimit-Reset header', tooMany({}, { 'ratelimit-reset': '30' }), 30_000],
    ['an absurd retry_after: capped at a day', tooMany({ retry_after: 1e20 }), 86_400_000],
    ['all three: the body wins', tooMany({ retry_after: 60 }, { 'retry-after': '120', 'ratelimit-reset': '30' }), 60_000],
    ['both headers: Retry-After wins', tooMany({}, { 'retry-after': '120', 'ratelimit-reset': '30' }), 120_000],
    ['an unusable retry_after: the headers are used', tooMany({ retry_after: 'soon' }, { 'retry-after': '120' }), 120_000],
    ['a negative retry_after: the headers are used', tooMany({ retry_after: -5 }, { 'ratelimit-reset': '30' }), 30_000],
    ['an unusable Retry-After: RateLimit-Reset is used', tooMany({}, { 'retry-after': 'later', 'ratelimit-reset': '30' }), 30_000],
    ['a non-JSON 429 with Retry-After', plain429({ 'retry-after': '7' }), 7_000]
  ])('the limiter’s 429: takes %s', (_label, got, ms) => {
    expect(retryAfterMs(got)).toBe(ms)
  })

  it.each([
    ['no hint at all', tooMany({})],
    ['a non-JSON 429 without headers', plain429()],
    ['only unusable hints', tooMany({ retry_after: null }, { 'retry-after': 'later', 'ratelimit-reset': '-1' })]
  ])('the limiter’s 429: is unknown with %s', (_label, got) => {
    expect(retryAfterMs(got)).toBeUndefined()
  })

  it.each([
    [
      'a 503 with only RateLimit-Reset: a backoff, not the window',
      answer(503, { 'ratelimit-remaining': '9', 'ratelimit-reset': '1800' }),
      undefined
    ],
    ['a 503 with Retry-After', answer(503, { 'retry-after': '5', 'ratelimit-reset': '1800' }), 5_000],
    [
      'a 200 with RateLimit-Remaining: 0: the limiter is spent',
      answer(200, { 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }),
      30_000
    ]
  ])('reads RateLimit-Reset only when the limiter is spent: %s', (_label, got, ms) => {
    expect(retryAfterMs(got)).toBe(ms)
  })

  it('leaves RateLimit-Reset out when told to', () => {
    expect(retryAfterMs(answer(429, { 'ratelimit-reset': '20' }), { limiterReset: false })).toBeUndefined()
    expect(retryAfterMs(answer(429, { 'ratelimit-reset': '20', 'retry-after': '2' }), { limiterReset: false })).toBe(2_000)
    expect(retryAfterMs(answer(429, { 'ratelimit-reset': '20' }), { limiterReset: true })).toBe(20_000)
  })
})

import * as http from 'node:http'
import * as net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type HttpRequest, NetworkError, send } from '../src/http/transport.js'

/** A real server on a free loopback port; every one is closed after its test. */
const servers: http.Server[] = []

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler)
  servers.push(server)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** A raw TCP server: `answer` writes the bytes of the answer once the request has arrived. */
const rawServers: net.Server[] = []

async function serveRaw(answer: (socket: net.Socket) => void): Promise<string> {
  const server = net.createServer(socket => {
    socket.on('error', () => undefined)
    socket.once('data', () => answer(socket))
  })
  rawServers.push(server)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
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

afterEach(async () => {
  for (const server of rawServers.splice(0)) server.close()
  const closing = servers.splice(0).map(
    server =>
      new Promise<void>(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  )
  await Promise.all(closing)
})

/** A port that was just open and is now closed: connecting to it is refused. */
async function closedPort(): Promise<string> {
  const server = http.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>(resolve => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

const KEY = 'dp_K3y-0f-Th3-B0t.s3cr3t'

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
    let connections = 0
    const url = await serve(handler)
    const server = servers.at(-1)!
    server.keepAliveTimeout = keepAliveMs
    server.on('connection', () => (connections += 1))
    return { url, connections: () => connections }
  }
  const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))
  const patch = (url: string, extra: Partial<HttpRequest> = {}): HttpRequest =>
    get(url, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{}', idleMarginMs: 3_000, ...extra })

  it('sends requests in a row on one connection, the next one sent as soon as an answer is read', async () => {
    const server = await counting(5_000)
    const answer = await send(get(server.url))
    expect(answer.headers['connection']).toBe('keep-alive')
    await send(get(server.url))
    await send(patch(server.url))
    expect(server.connections(), 'one connection for three requests in a row').toBe(1)
  })

  it('opens one connection per request in flight, and reuses them afterwards', async () => {
    const server = await counting(5_000)
    await Promise.all([send(get(server.url)), send(get(server.url)), send(get(server.url))])
    await Promise.all([send(get(server.url)), send(get(server.url)), send(get(server.url))])
    expect(server.connections()).toBe(3)
  })

  it('sends the PATCH on a fresh connection when the reused one has idled within 3 s of the announced timeout', async () => {
    // The server keeps idle connections 4 s: after 1.2 s idle, less than 3 s is left.
    const server = await counting(4_000)
    await send(get(server.url))
    await sleep(1_200)
    await send(patch(server.url))
    expect(server.connections(), 'the PATCH opened a fresh connection').toBe(2)
    // A read right after that reuses the PATCH's connection: its idle time is short.
    await send(get(server.url))
    expect(server.connections()).toBe(2)
  })

  it('sends the PATCH on the reused connection when it has idled briefly', async () => {
    const server = await counting(5_000)
    await send(get(server.url))
    await sleep(300)
    await send(patch(server.url))
    expect(server.connections()).toBe(1)
  })

  it('sends a read on a fresh connection within 1 s of the announced timeout', async () => {
    const server = await counting(2_000)
    await send(get(server.url))
    await sleep(1_100)
    await send(get(server.url))
    expect(server.connections(), 'the read after 1.1 s of a 2 s keep-alive opened a fresh connection').toBe(2)
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

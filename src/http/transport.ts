import * as http from 'node:http'

/** One HTTP request, sent exactly once: retries are the caller's decision, per operation. */
export interface HttpRequest {
  readonly method: 'GET' | 'PATCH'
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  /** The whole exchange, connect to last body byte, must finish within this. */
  readonly timeoutMs: number
  /** Bytes of body kept; the rest is discarded unread (a hostile or broken answer stays small). */
  readonly maxBodyBytes?: number
  /**
   * A kept-alive connection is reused only with more than this much of the server's idle
   * timeout left; otherwise the request goes on a fresh connection. Default `READ_MARGIN_MS`.
   */
  readonly idleMarginMs?: number
  /** Cuts the exchange off when it aborts: the request fails as a NetworkError (code ABORT_ERR). */
  readonly signal?: AbortSignal
}

export interface HttpAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  /** The body's bytes, as kept: for a body that may not be UTF-8 (a file read through GitHub's API). */
  readonly bytes?: Buffer
  readonly truncated: boolean
  /** The parsed body when it is JSON, else undefined. */
  readonly json: unknown
}

/**
 * The request failed without an answer. `delivered` tells whether the request may have
 * reached the server: false only when the connection itself could not be made, which is
 * what decides whether a non-idempotent request may be sent again.
 */
export class NetworkError extends Error {
  readonly code: string | undefined
  readonly delivered: boolean
  /**
   * The final status line (and headers, when they could be parsed) that arrived before the
   * failure: the server received the request and answered; only the rest was lost. An interim
   * 1xx answer is not one: after it the server's decision is still unknown.
   */
  readonly answered: { readonly status: number; readonly headers: http.IncomingHttpHeaders } | undefined

  constructor(message: string, code: string | undefined, delivered: boolean, answered?: NetworkError['answered']) {
    super(message)
    this.name = 'NetworkError'
    this.code = code
    this.delivered = delivered
    this.answered = answered
  }
}

const DEFAULT_MAX_BODY = 64 * 1024

/** Errors raised before any byte of the request could reach the server. */
const CONNECT_ERRORS: ReadonlySet<string | undefined> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID'
])

type Transport = typeof import('node:http')

/**
 * Connections are kept alive and reused within a run: one per host, as the requests go one at
 * a time (the record read and the PATCH, the Discord calls, the vote checks). Over the internet each new connection costs a TCP and a TLS
 * handshake, two round trips, before the request can go. An idle kept-alive socket does
 * not hold the process: Node's agent unrefs it, so the run still ends with its work.
 *
 * A server closes a connection that stays idle past its keep-alive timeout (the service:
 * `Keep-Alive: timeout=5`). A request sent as that close crosses it meets a reset with no
 * way to tell whether the server read it. So a connection is reused only with a margin of
 * that timeout left (the timeout the server announced, else the service's 5 s); past the
 * margin it is closed and the request opens a fresh one.
 */
const ASSUMED_KEEP_ALIVE_MS = 5_000
/** The default margin: a read that still meets a reset is retried under its policy. */
const READ_MARGIN_MS = 1_000

/** When each kept-alive socket last finished an answer, and the idle timeout its server announced. */
const lastAnswer = new WeakMap<object, { at: number; keepAliveMs: number }>()

/** The idle timeout a `Keep-Alive: timeout=N` header announces, in ms. */
function announcedKeepAlive(header: string | string[] | undefined): number {
  const seconds = /(?:^|[\s,])timeout=(\d+)/i.exec(String(header ?? ''))?.[1]
  return seconds === undefined ? ASSUMED_KEEP_ALIVE_MS : Number(seconds) * 1000
}

/**
 * Closes the agent's idle sockets that have `marginMs` or less of their server's idle
 * timeout left, so that the next request opens a fresh connection instead. Each is
 * destroyed, then taken out of the agent's free list at once ('agentRemove', as Node's
 * documentation shows; the agent drops only a socket no longer writable from that list),
 * rather than when its close event comes, so that no request can be given one of them.
 */
function closeTiredSockets(agent: http.Agent, marginMs: number): void {
  const now = Date.now()
  // A proxy's tunnel agent keeps no free sockets, and has no list.
  for (const free of Object.values(agent.freeSockets ?? {})) {
    for (const socket of [...(free ?? [])]) {
      const last = lastAnswer.get(socket)
      if (last !== undefined && now - last.at < last.keepAliveMs - marginMs) continue
      socket.destroy()
      socket.emit('agentRemove')
    }
  }
}

/**
 * The module and agent for a URL, loaded on first use: node:https (with TLS, a fifth of a
 * run's start) only for https, and @actions/http-client only when a proxy variable is set.
 * It picks the agent then: tunnelled through HTTPS_PROXY / HTTP_PROXY, or direct for hosts
 * NO_PROXY names and for loopback, as self-hosted runners behind a proxy need. The client is
 * made without keep-alive, so it makes a tunnel agent (the `tunnel` package) for each request,
 * through the proxy the environment names when the request is made. A tunnel agent closes its
 * tunnel as soon as no request waits for it, so through a proxy each request has its own
 * tunnel either way. `tunnels` holds the CONNECT requests that agent makes (see trackTunnels).
 */
async function route(url: URL): Promise<{ transport: Transport; agent: http.Agent; tunnels: http.ClientRequest[] }> {
  const secure = url.protocol === 'https:'
  const transport = (secure ? process.getBuiltinModule('node:https') : http) as Transport
  const direct = (): http.Agent => (directAgents[url.protocol] ??= new transport.Agent({ keepAlive: true }))
  const proxyVariable = secure ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY']
  if (!proxyVariable.some(name => process.env[name])) return { transport, agent: direct(), tunnels: [] }
  const { getProxyUrl, HttpClient } = await import('@actions/http-client')
  if (getProxyUrl(url.href) === '') return { transport, agent: direct(), tunnels: [] }
  const agent = new HttpClient().getAgent(url.href)
  return { transport, agent, tunnels: trackTunnels(agent as TunnelAgent) }
}

/** What the transport uses of the `tunnel` package's agent: the function it makes its CONNECT requests with. */
type TunnelAgent = http.Agent & { request: typeof http.request }

/**
 * The CONNECT requests a tunnel agent makes, kept so that the exchange can end them.
 *
 * The `tunnel` package's agent opens a tunnel with a CONNECT request of its own
 * (`TunnelingAgent.prototype.createSocket`: `self.request(connectOptions)`, with the `request`
 * function it keeps on the agent, http.request or https.request), and gives the client request
 * no socket until the proxy has answered it. So destroying the client request does not end a
 * CONNECT the proxy never answers: its socket stays open, and keeps the process alive past the
 * step's deadline and a stop signal, until the proxy closes it (minutes or hours later). The
 * agent's `request` is wrapped to keep each CONNECT request it makes; the exchange destroys
 * them when it fails (an error, its deadline, a stop). Destroying one whose tunnel opened is a
 * no-op: Node marks a CONNECT request destroyed once it hands over its socket, which the client
 * request then holds and destroys itself. The agent is this request's own (see route).
 */
function trackTunnels(agent: TunnelAgent): http.ClientRequest[] {
  const made: http.ClientRequest[] = []
  const request = agent.request
  agent.request = function (this: unknown, ...args: Parameters<typeof http.request>) {
    const connect = request.apply(this, args)
    made.push(connect)
    return connect
  } as typeof http.request
  return made
}

const directAgents: Record<string, http.Agent> = {}

/** Sends one request and reads its answer, bounded in time and size. */
export async function send(request: HttpRequest): Promise<HttpAnswer> {
  const url = new URL(request.url)
  const { transport, agent, tunnels } = await route(url)
  closeTiredSockets(agent, request.idleMarginMs ?? READ_MARGIN_MS)
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8')
  const headers: Record<string, string | number> = { ...request.headers }
  if (body !== undefined) headers['Content-Length'] = body.length
  const maxBody = request.maxBodyBytes ?? DEFAULT_MAX_BODY

  return new Promise<HttpAnswer>((resolve, reject) => {
    let connected = false
    let settled = false
    let answered: NetworkError['answered']
    /** Ends the exchange once: false when it had ended already. */
    const settle = (): boolean => {
      if (settled) return false
      settled = true
      clearTimeout(timer)
      request.signal?.removeEventListener('abort', abort)
      return true
    }
    const fail = (error: unknown): void => {
      if (!settle()) return
      // A tunnel still being opened ends with the exchange (see trackTunnels).
      for (const connect of tunnels) connect.destroy()
      const failure = toNetworkError(error, url, connected, request.timeoutMs)
      reject(answered === undefined ? failure : new NetworkError(failure.message, failure.code, true, answered))
    }
    const req = transport.request(url, { method: request.method, headers, agent }, res => {
      answered = { status: res.statusCode ?? 0, headers: res.headers }
      const chunks: Buffer[] = []
      let kept = 0
      let truncated = false
      const finish = (): void => {
        if (!settle()) return
        const bytes = Buffer.concat(chunks)
        const text = bytes.toString('utf8')
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, truncated, json: parseJson(text, truncated) })
      }
      res.on('data', (chunk: Buffer) => {
        const room = maxBody - kept
        if (chunk.length > room) {
          truncated = true
          chunks.push(chunk.subarray(0, room))
          kept = maxBody
          finish()
          res.destroy()
          return
        }
        chunks.push(chunk)
        kept += chunk.length
      })
      // Node takes the socket off the answer when it goes back to the agent, at the answer's end.
      const socket = res.socket
      res.on('end', () => {
        lastAnswer.set(socket, { at: Date.now(), keepAliveMs: announcedKeepAlive(res.headers['keep-alive']) })
        finish()
      })
      res.on('error', fail)
      res.on('aborted', () => fail(Object.assign(new Error('connection closed mid-answer'), { code: 'ECONNRESET' })))
    })
    const timer = setTimeout(() => {
      fail(Object.assign(new Error('deadline'), { code: 'ETIMEDOUT' }))
      req.destroy()
    }, request.timeoutMs)
    const abort = (): void => {
      fail(Object.assign(new Error('stopped'), { code: 'ABORT_ERR' }))
      req.destroy()
    }
    if (request.signal?.aborted) abort()
    else request.signal?.addEventListener('abort', abort)
    // Connected: the request may reach the server from then on. A reused connection counts as
    // connected from the start: a failure on it may come after the server read the request (it
    // closed the connection while the request was under way). A fresh https connection counts
    // only once its TLS handshake is done ('secureConnect'), whatever its TCP state: through a
    // proxy the tunnel agent hands over a TLS socket wrapped around the tunnel's socket, which is
    // not `connecting` although its handshake has not begun. A fresh http connection counts once
    // it connects; one that is not connecting is a proxy's open tunnel, through which the
    // request goes at once. Through a proxy the request gets no socket until the proxy has opened
    // the tunnel, so a CONNECT that never completes leaves it unconnected: nothing was sent.
    req.on('socket', socket => {
      if (req.reusedSocket) connected = true
      else if (url.protocol === 'https:') socket.once('secureConnect', () => (connected = true))
      else if (socket.connecting) socket.once('connect', () => (connected = true))
      else connected = true
      // The final status line, seen as it arrives: when the headers after it overflow the
      // parser, the request fails without a response object, yet the server did answer.
      const sniff = statusSniffer(status => {
        socket.off('data', sniff)
        answered ??= { status, headers: {} }
      })
      // First in line: the client's own parser fails the request on the same chunk.
      socket.prependListener('data', sniff)
      req.once('close', () => socket.off('data', sniff))
    })
    req.on('error', fail)
    req.end(body)
  })
}

/** Enough of a line to read `HTTP/1.1 200`. */
const STATUS_LINE_START = 16

/**
 * Reads the status lines of an answer from its bytes as they arrive, and calls `final` with
 * the first final one (200 and up). An interim answer (`100 Continue`, `103 Early Hints`) is
 * not the answer: the request may still fail before the final one, and then the server's
 * decision is unknown. Interim answers, their headers and the final status line can arrive in
 * one chunk or cut anywhere across several, so each line start is read, whatever the chunks.
 */
function statusSniffer(final: (status: number) => void): (chunk: Buffer) => void {
  /** The start of the current line (up to STATUS_LINE_START characters), and whether it was read. */
  let line = ''
  let read = false
  let done = false
  return chunk => {
    const text = chunk.toString('latin1')
    let from = 0
    while (!done) {
      const end = text.indexOf('\n', from)
      if (!read) {
        line += text.slice(from, Math.min(end === -1 ? text.length : end, from + STATUS_LINE_START - line.length))
        if (line.length >= STATUS_LINE_START || end !== -1) {
          read = true
          const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(line)
          if (status !== null && Number(status[1]) >= 200) {
            done = true
            final(Number(status[1]))
          }
        }
      }
      if (end === -1) break
      line = ''
      read = false
      from = end + 1
    }
  }
}

function parseJson(text: string, truncated: boolean): unknown {
  if (truncated || !/^\s*[[{]/.test(text)) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * A short message of our own for a failed exchange. Library errors are not passed on as
 * they are: some quote request options, and a request option may hold a secret.
 */
function toNetworkError(error: unknown, url: URL, connected: boolean, timeoutMs: number): NetworkError {
  const given = (error as { code?: unknown } | null | undefined)?.code
  const code = given === undefined ? undefined : String(given)
  const where = url.host
  // The proxy agent's own words when the proxy refuses the tunnel (its CONNECT answer was not
  // 200): the request never reached the service. Only the status is taken from them.
  const refused = /tunneling socket could not be established, statusCode=(\d{3})/.exec(error instanceof Error ? error.message : '')
  if (refused) {
    const status = Number(refused[1])
    const advice =
      status === 407
        ? 'it asks for proxy authentication (407 Proxy Authentication Required): check the user name and password in HTTPS_PROXY or HTTP_PROXY (http://user:password@host:port)'
        : `it answered ${status}: check the proxy's rules for ${where}, or set NO_PROXY for it`
    return new NetworkError(`the proxy did not open a connection to ${where}; ${advice}`, code, false)
  }
  if (code === 'ETIMEDOUT') {
    // An attempt cut to the step's time left has an odd length (2994 ms): said to a tenth of a second.
    return new NetworkError(`no complete answer from ${where} within ${Math.round(timeoutMs / 100) / 10} s`, code, connected)
  }
  if (CONNECT_ERRORS.has(code)) {
    const reason =
      code === 'ECONNREFUSED'
        ? 'the connection was refused'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'the host name could not be resolved'
          : `its TLS certificate was not accepted (${code})`
    return new NetworkError(`could not connect to ${where}: ${reason}`, code, false)
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return new NetworkError(`could not reach ${where} (${code})`, code, connected)
  }
  return new NetworkError(`the connection to ${where} failed (${code ?? 'unknown error'})`, code, connected)
}

/**
 * The wait an answer asks for: `retry_after` in the body, else `Retry-After`, else (unless
 * `limiterReset: false`) `RateLimit-Reset` when the limiter is spent (a 429, or
 * `RateLimit-Remaining: 0`). On any
 * other answer `RateLimit-Reset` only describes the limiter's window, not a wait: a 5xx
 * carrying it is retried after a backoff, not held back for the window.
 */
export function retryAfterMs(answer: HttpAnswer, options: { limiterReset?: boolean } = {}): number | undefined {
  const body = answer.json as { retry_after?: unknown } | undefined
  const spent =
    options.limiterReset !== false && (answer.status === 429 || String(answer.headers['ratelimit-remaining'] ?? '').trim() === '0')
  const seconds = [body?.retry_after, answer.headers['retry-after'], spent ? answer.headers['ratelimit-reset'] : undefined]
    .map(value => (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value))
    .find((value): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0)
  // A day at most: past that the figure is broken, and no wait of the action's is that long.
  return seconds === undefined ? undefined : Math.min(Math.ceil(seconds * 1000), 86_400_000)
}

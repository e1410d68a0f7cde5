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
  /** Cuts the exchange off when it aborts: the request fails as a NetworkError (code ABORT_ERR). */
  readonly signal?: AbortSignal
}

export interface HttpAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  /**
   * The body's bytes, as kept: for a body that may not be UTF-8 (a file read through GitHub's API).
   */
  readonly bytes?: Buffer
  readonly truncated: boolean
  /** The parsed body when it is JSON, else undefined. */
  readonly json: unknown
}

/**
 * The request failed without an answer. `delivered` tells whether the request may have reached the
 * server: it is false only when the connection itself could not be made, and that is what decides
 * whether a PATCH, which is not idempotent, may be sent again.
 */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly delivered: boolean,
    /**
     * The final status line (and its headers, when they could be parsed) that arrived before the
     * failure: the server received the request and answered, and only the rest was lost. An interim
     * 1xx answer is not one, because after it the server's decision is still unknown.
     */
    readonly answered?: { readonly status: number; readonly headers: http.IncomingHttpHeaders }
  ) {
    super(message)
    this.name = 'NetworkError'
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

const directAgents: Record<string, http.Agent> = {}

/**
 * The module and agent for a URL, loaded on first use: node:https (with TLS, a fifth of a run's
 * start) only for https, and @actions/http-client only when a proxy variable is set. Direct agents
 * keep connections alive, which spares a TCP and a TLS handshake per request; an idle kept-alive
 * socket does not hold the process, because Node's agent unrefs it. Through HTTPS_PROXY or
 * HTTP_PROXY the client is made without keep-alive, so it makes a tunnel agent (the `tunnel`
 * package) for each request, and each request has its own tunnel. Hosts that NO_PROXY names and
 * loopback go direct, as self-hosted runners behind a proxy need.
 */
async function route(
  url: URL
): Promise<{ transport: typeof http; agent: http.Agent; tunnels: http.ClientRequest[] }> {
  const secure = url.protocol === 'https:'
  const transport = (secure ? process.getBuiltinModule('node:https') : http) as typeof http
  const direct = (): http.Agent =>
    (directAgents[url.protocol] ??= new transport.Agent({ keepAlive: true }))
  const proxyVariable = secure ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY']
  if (!proxyVariable.some(name => process.env[name]))
    return { transport, agent: direct(), tunnels: [] }
  const { getProxyUrl, HttpClient } = await import('@actions/http-client')
  if (getProxyUrl(url.href) === '') return { transport, agent: direct(), tunnels: [] }
  const agent = new HttpClient().getAgent(url.href)
  return {
    transport,
    agent,
    tunnels: trackTunnels(agent as http.Agent & { request: typeof http.request })
  }
}

/**
 * The CONNECT requests a tunnel agent makes, kept so that a failed exchange can end them.
 *
 * The `tunnel` package's agent opens a tunnel with a CONNECT request of its own, made with the
 * `request` function it keeps on the agent (`TunnelingAgent.prototype.createSocket`), and gives the
 * client request no socket until the proxy has answered that CONNECT. So destroying the client
 * request does not end a CONNECT the proxy never answers: its socket stays open and keeps the
 * process alive past the step's deadline and past a stop signal, until the proxy closes it, minutes
 * or hours later. The agent's `request` is therefore wrapped to keep each CONNECT request it makes,
 * and the exchange destroys them all when it fails (an error, its deadline, a stop).
 *
 * Destroying a CONNECT whose tunnel did open is safe: Node marks a CONNECT request destroyed once
 * it hands its socket over, so the call does nothing, and the client request, which now holds that
 * socket, destroys it itself. The agent is this request's own (see route), so no other request's
 * tunnel is touched.
 */
function trackTunnels(agent: http.Agent & { request: typeof http.request }): http.ClientRequest[] {
  const made: http.ClientRequest[] = []
  const request = agent.request
  agent.request = function (this: unknown, ...args: Parameters<typeof http.request>) {
    const connect = request.apply(this, args)
    made.push(connect)
    return connect
  } as typeof http.request
  return made
}

/** Sends one request and reads its answer, bounded in time and size. */
export async function send(request: HttpRequest): Promise<HttpAnswer> {
  const url = new URL(request.url)
  const { transport, agent, tunnels } = await route(url)
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
      const failure = toNetworkError(error, url.host, connected, request.timeoutMs)
      reject(
        answered === undefined
          ? failure
          : new NetworkError(failure.message, failure.code, true, answered)
      )
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
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          bytes,
          truncated,
          json: parseJson(text, truncated)
        })
      }
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk.subarray(0, maxBody - kept))
        kept += chunk.length
        if (kept <= maxBody) return
        truncated = true
        finish()
        res.destroy()
      })
      res.on('end', finish)
      res.on('error', fail)
      res.on('aborted', () =>
        fail(Object.assign(new Error('connection closed mid-answer'), { code: 'ECONNRESET' }))
      )
    })
    const cut = (code: string): void => {
      fail(Object.assign(new Error(code), { code }))
      req.destroy()
    }
    const timer = setTimeout(() => cut('ETIMEDOUT'), request.timeoutMs)
    const abort = (): void => cut('ABORT_ERR')
    if (request.signal?.aborted) abort()
    else request.signal?.addEventListener('abort', abort)
    // Connected: from then on the request may reach the server, so a failure no longer proves that
    // it was not sent. This is the rule that decides whether a PATCH may go again: one that failed
    // unconnected may be resent; one that failed connected only when a fresh read of the public
    // record shows that it did not arrive (stats/delivery.ts).
    req.on('socket', socket => {
      // A reused connection counts from the start: the server may close it while the request is
      // under way, and the failure that follows may come after the server read the request.
      if (req.reusedSocket) connected = true
      // A fresh https connection counts only once its TLS handshake is done, whatever its TCP
      // state: through a proxy, the tunnel agent hands over a TLS socket wrapped around the
      // tunnel's socket, which is not `connecting` although its handshake has not begun.
      else if (url.protocol === 'https:') socket.once('secureConnect', () => (connected = true))
      // A fresh http connection counts once it connects.
      else if (socket.connecting) socket.once('connect', () => (connected = true))
      // One that is not connecting is a proxy's open tunnel, through which the request goes at
      // once. (Through a proxy the request gets no socket until the tunnel is open, so a CONNECT
      // that never completes leaves the request unconnected: nothing was sent.)
      else connected = true
      // The final status line, read from the bytes as they arrive: when the headers after it
      // overflow Node's parser, the request fails without a response object, yet the server did
      // answer, and the failure must say so (a PATCH that was answered is never sent again).
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
 * Reads the status lines of an answer from its bytes as they arrive, and calls `final` with the
 * first final one (200 and up). An interim answer (`100 Continue`, `103 Early Hints`) is not the
 * answer: the request may still fail before the final one, and then the server's decision is
 * unknown. Interim answers, their headers and the final status line may come in one chunk or be cut
 * anywhere across several, so the start of every line is read, whatever the chunks.
 */
function statusSniffer(final: (status: number) => void): (chunk: Buffer) => void {
  /** The start of the current line, up to STATUS_LINE_START characters, carried across chunks. */
  let line = ''
  return chunk => {
    // Each piece but the last ends a line; the last continues into the next chunk.
    const pieces = chunk.toString('latin1').split('\n')
    for (const [i, piece] of pieces.entries()) {
      line = (line + piece).slice(0, STATUS_LINE_START)
      const ended = i < pieces.length - 1
      // A line is read once it has ended or is long enough to hold a status; a shorter start may
      // still be completed by the next chunk.
      const status =
        ended || line.length === STATUS_LINE_START
          ? Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(line)?.[1])
          : NaN
      if (status >= 200) return final(status)
      if (ended) line = ''
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
 * A short message of our own for a failed exchange. Library errors are not passed on as they are:
 * some quote the request's options, and an option may hold a secret.
 */
function toNetworkError(
  error: unknown,
  where: string,
  connected: boolean,
  timeoutMs: number
): NetworkError {
  const given = (error as { code?: unknown } | null | undefined)?.code
  const code = given === undefined ? undefined : String(given)
  // The proxy agent's own words when the proxy refuses the tunnel (its CONNECT answer was not 200):
  // the request never reached the service. Only the status is taken from them.
  const refused = /tunneling socket could not be established, statusCode=(\d{3})/.exec(
    error instanceof Error ? error.message : ''
  )
  if (refused) {
    const advice =
      refused[1] === '407'
        ? 'it asks for proxy authentication (407 Proxy Authentication Required): check the user name and password in HTTPS_PROXY or HTTP_PROXY (http://user:password@host:port)'
        : `it answered ${refused[1]}: check the proxy's rules for ${where}, or set NO_PROXY for it`
    return new NetworkError(
      `the proxy did not open a connection to ${where}; ${advice}`,
      code,
      false
    )
  }
  if (code === 'ETIMEDOUT') {
    // An attempt cut to the step's time left has an odd length (2994 ms): said to a tenth of a
    // second.
    return new NetworkError(
      `no complete answer from ${where} within ${Math.round(timeoutMs / 100) / 10} s`,
      code,
      connected
    )
  }
  if (CONNECT_ERRORS.has(code)) {
    return new NetworkError(`could not connect to ${where}: ${connectFailure(code)}`, code, false)
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return new NetworkError(`could not reach ${where} (${code})`, code, connected)
  return new NetworkError(
    `the connection to ${where} failed (${code ?? 'unknown error'})`,
    code,
    connected
  )
}

/** Why a connection could not be made, from one of CONNECT_ERRORS. */
function connectFailure(code: string | undefined): string {
  if (code === 'ECONNREFUSED') return 'the connection was refused'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name could not be resolved'
  return `its TLS certificate was not accepted (${code})`
}

/**
 * The wait an answer asks for: `retry_after` in the body, else `Retry-After`, else (unless
 * `limiterReset: false`) `RateLimit-Reset` when the limiter is spent (a 429, or
 * `RateLimit-Remaining: 0`). On any other answer `RateLimit-Reset` only describes the limiter's
 * window, not a wait: a 5xx carrying it is retried after a backoff, not held back for the window.
 */
export function retryAfterMs(
  answer: HttpAnswer,
  options: { limiterReset?: boolean } = {}
): number | undefined {
  const body = answer.json as { retry_after?: unknown } | undefined
  const spent =
    options.limiterReset !== false &&
    (answer.status === 429 || String(answer.headers['ratelimit-remaining'] ?? '').trim() === '0')
  const seconds = [
    body?.retry_after,
    answer.headers['retry-after'],
    spent ? answer.headers['ratelimit-reset'] : undefined
  ]
    .map(value =>
      typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value
    )
    .find(
      (value): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0
    )
  // A day at most: past that the figure is broken, and no wait of the action's is that long.
  return seconds === undefined ? undefined : Math.min(Math.ceil(seconds * 1000), 86_400_000)
}

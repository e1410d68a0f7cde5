/**
 * A loopback emulator of the bot listing service, answering as
 * test/fixtures/service/service-behaviour.md says the live one does (else as its OpenAPI document
 * says); test/shared/emulator.test.ts holds it to each answer. It records every request, rate-limit
 * window and strike, for tests to assert on. It lives here, not under test/, because the scripts
 * serve it too: `npm start`, `npm run bench` and the CI job that runs `uses: ./` (scripts/emulator.ts).
 */
import type * as http from 'node:http'
import {
  type Answer,
  FakeServer,
  type Fault,
  type RecordedRequest as ServerRequest,
  type Router,
  serviceError as error
} from './server.js'

export const SIX_HOURS = 6 * 60 * 60 * 1000

export interface BotSeed {
  id: string
  apiKey: string
  verified?: boolean
  commands?: number
  servers?: number
  /**
   * When the bot was submitted (default 30 days ago): the command count's first update time, as the
   * live service has it.
   */
  createdAt?: Date
  /**
   * When the counts were last updated; the command count defaults to `createdAt`, the server count
   * to long ago.
   */
  commandsUpdatedAt?: Date
  serversUpdatedAt?: Date
  /** The count Discord reports, that the server count is checked against; default `servers`. */
  realServerCount?: number
  /** The service cannot get the bot's server count from Discord (500, nothing stored). */
  discordDown?: boolean
  /** The service's internal answer has no server count: any count in range passes. */
  serverCountUnknown?: boolean
  /** Times of strikes already counted (refused early updates). */
  strikes?: Date[]
  voters?: Record<string, { vote: number; lastVote: Date | null }>
  /** Keys revoked earlier for strikes (the only way a key is revoked): 410 on every later use. */
  revokedKeys?: string[]
}

interface BotState extends Required<Omit<BotSeed, 'apiKey' | 'revokedKeys' | 'createdAt'>> {
  /** Undefined when the bot has no key (deleted, or revoked at the fifth strike). */
  apiKey: string | undefined
  revokedKeys: Set<string>
}

export type RouteKind = 'stats' | 'record' | 'votes'

/** A limiter's window: `key` is the bot's ID, or the client's address for the record. */
export type RateWindow = {
  route: RouteKind
  key: string
  start: number
  count: number
  refused: number
}
export type RateLimit = { limit: number; windowMs: number }

export interface EmulatorOptions {
  bots?: BotSeed[]
  /** A path the service is mounted under, e.g. `/api`. */
  prefix?: string
  rateLimits?: Partial<Record<RouteKind, RateLimit>>
  now?: () => number
  /** Serve https with this key and certificate. */
  tls?: { key: string; cert: string }
  /** How long after it arrived each request is handled, as over the internet (default 0). */
  latencyMs?: number
}

export type { Fault } from './server.js'
export type RecordedRequest = ServerRequest<RouteKind>

/** A JSON answer, once, in place of the emulator's own. */
export function jsonFault(
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): Fault {
  return {
    kind: 'answer',
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body)
  }
}

const TOO_MANY = 'Too many requests, please try again later.'
const EARLY = 'You can only update stats once every 6 hours.'
/** The service's words when an early update is the fifth strike within 6 hours, with its 410. */
export const FIFTH_STRIKE =
  'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.'

/**
 * The request limiter's 429, once, with `fields` beside its own (a `retry_after`) and these
 * headers.
 */
export function limiterFault(
  fields: Record<string, unknown> = {},
  headers: Record<string, string> = {}
): Fault {
  return jsonFault(429, { success: false, error: TOO_MANY, status: 429, ...fields }, headers)
}

/** The 6-hour refusal as the service sends it, once: no Retry-After, no retry_after. */
export const SIX_HOUR_REFUSAL: Fault = jsonFault(429, { success: false, error: EARLY, status: 429 })

/**
 * A bot's public record, once, last updated at `at` (both counts), with these headers (an `Age`, a
 * `Date`).
 */
export function recordFault(id: string, at: Date, headers: Record<string, string> = {}): Fault {
  const time = at.toISOString()
  return jsonFault(
    200,
    { id, commands: 12, commands_updated_at: time, servers: 1204, servers_updated_at: time },
    headers
  )
}

/**
 * The live limiters: stats and votes per bot, counting answers below 400; the record per client IP,
 * counting all.
 */
export const LIVE_LIMITS: Readonly<Record<RouteKind, RateLimit>> = {
  stats: { limit: 2, windowMs: 30 * 60_000 },
  record: { limit: 10, windowMs: 60_000 },
  votes: { limit: 100, windowMs: 5 * 60_000 }
}

export class ServiceEmulator extends FakeServer<RouteKind> {
  private readonly bots = new Map<string, BotState>()
  private readonly windows = new Map<string, RateWindow>()
  /** Every rate-limit window opened, with the requests it counted and the 429s it answered. */
  readonly windowLog: RateWindow[] = []
  private readonly prefix: string
  private readonly limits: Record<RouteKind, RateLimit>
  private readonly now: () => number

  private constructor(options: EmulatorOptions) {
    super((method, path) => this.route(method, path), options.tls, options.latencyMs)
    this.prefix = (options.prefix ?? '').replace(/\/+$/, '')
    this.limits = { ...LIVE_LIMITS, ...options.rateLimits }
    this.now = options.now ?? Date.now
    for (const seed of options.bots ?? []) this.addBot(seed)
  }

  /**
   * Starts an emulator on 127.0.0.1 at a free port; `url` is the service's base address, prefix
   * included.
   */
  static async start(options: EmulatorOptions = {}): Promise<ServiceEmulator> {
    const emulator = new ServiceEmulator(options)
    await emulator.listen(emulator.prefix)
    return emulator
  }

  addBot(seed: BotSeed): void {
    const longAgo = new Date(this.now() - 30 * 24 * 60 * 60 * 1000)
    this.bots.set(seed.id, {
      id: seed.id,
      apiKey: seed.apiKey,
      revokedKeys: new Set(seed.revokedKeys),
      verified: seed.verified ?? true,
      commands: seed.commands ?? 0,
      servers: seed.servers ?? 0,
      commandsUpdatedAt: seed.commandsUpdatedAt ?? seed.createdAt ?? longAgo,
      serversUpdatedAt: seed.serversUpdatedAt ?? longAgo,
      realServerCount: seed.realServerCount ?? seed.servers ?? 0,
      discordDown: seed.discordDown ?? false,
      serverCountUnknown: seed.serverCountUnknown ?? false,
      strikes: [...(seed.strikes ?? [])],
      voters: { ...seed.voters }
    })
  }

  /**
   * Counts `count` requests in a limiter's window, as other jobs would have (`key`: the bot's ID,
   * or `127.0.0.1` for the record). Only successes fill the stats limiter, and the 6-hour rule
   * keeps those apart, so tests reach its 429 this way.
   */
  spendLimit(route: RouteKind, key: string, count: number): void {
    this.window(route, key, this.now()).count += count
  }

  /**
   * The owner generates a new key on the manage page: the old one is not revoked, simply no longer
   * the bot's (401).
   */
  regenerateKey(id: string, newKey: string): void {
    this.bot(id).apiKey = newKey
  }

  /** The owner deletes the key on the manage page: the bot has no key, and the old one gets 401. */
  deleteKey(id: string): void {
    this.bot(id).apiKey = undefined
  }

  bot(id: string): BotState {
    const bot = this.bots.get(id)
    if (bot === undefined) throw new Error(`no bot ${id}`)
    return bot
  }

  private route(method: string, fullPath: string): ReturnType<Router<RouteKind>> {
    const path = fullPath.startsWith(this.prefix) ? fullPath.slice(this.prefix.length) : '\0'
    let m = /^\/bots\/([^/]+)\/stats$/.exec(path)
    if (m && method === 'PATCH')
      return this.limited('stats', m[1]!, (req, body) => this.updateStats(m![1]!, req, body))
    m = /^\/bots\/([^/]+)\/voters\/([^/]+)$/.exec(path)
    if (m && method === 'GET')
      return this.limited('votes', m[1]!, req => this.voteStatus(m![1]!, m![2]!, req))
    m = /^\/bots\/([^/]+)$/.exec(path)
    if (m && method === 'GET') return this.limited('record', m[1]!, () => this.publicRecord(m![1]!))
    return { route: 'other', reply: () => error(404, 'Not found.') }
  }

  private window(route: RouteKind, key: string, now: number): RateWindow {
    const id = `${route} ${key}`
    let window = this.windows.get(id)
    if (window === undefined || now - window.start >= this.limits[route].windowMs) {
      window = { route, key, start: now, count: 0, refused: 0 }
      this.windows.set(id, window)
      this.windowLog.push(window)
    }
    return window
  }

  /**
   * A fixed-window limiter runs first, with `RateLimit-*` on every answer; its 429's Retry-After is
   * the seconds left.
   */
  private limited(
    route: RouteKind,
    botId: string,
    handler: (req: http.IncomingMessage, body: string) => Answer
  ) {
    return {
      route,
      reply: (req: http.IncomingMessage, body: string, res: http.ServerResponse): Answer => {
        // The service's own clock, which tests may set apart from the runner's.
        res.setHeader('Date', new Date(this.now()).toUTCString())
        const [{ limit, windowMs }, now] = [this.limits[route], this.now()]
        const window = this.window(
          route,
          route === 'record' ? (req.socket.remoteAddress ?? '') : botId,
          now
        )
        const reset = Math.ceil((window.start + windowMs - now) / 1000)
        const remaining = (): void =>
          void res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - window.count)))
        res.setHeader('RateLimit-Policy', `${limit};w=${Math.round(windowMs / 1000)}`)
        res.setHeader('RateLimit-Limit', String(limit))
        res.setHeader('RateLimit-Reset', String(reset))
        if (window.count >= limit) {
          window.refused += 1
          remaining()
          return {
            status: 429,
            headers: { 'Retry-After': String(reset) },
            json: { success: false, error: TOO_MANY, status: 429, retry_after: reset }
          }
        }
        window.count += 1
        const answer = handler(req, body)
        // The stats and vote limiters count only answers below 400.
        if (route !== 'record' && answer.status >= 400) window.count -= 1
        remaining()
        return answer
      }
    }
  }

  private updateStats(id: string, req: http.IncomingMessage, raw: string): Answer {
    let body: unknown = {}
    if (/^application\/json\b/i.test(String(req.headers['content-type'] ?? ''))) {
      try {
        body = JSON.parse(raw)
      } catch {
        // The live service's JSON parser answers with its framework's HTML error page.
        const page = '<!DOCTYPE html><html><body><pre>Bad Request</pre></body></html>'
        return { status: 400, headers: { 'Content-Type': 'text/html; charset=utf-8' }, text: page }
      }
    }
    const fields = (
      typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}
    ) as Record<string, unknown>
    // Fields other than the two counts are ignored, and a count may come as a string of digits.
    const { command_count: commands, server_count: servers } = fields
    if (commands === undefined && servers === undefined)
      return error(400, 'One of the following fields is required: command_count, server_count.')
    if (commands !== undefined && !isIntegerIn(commands, 0, 1000))
      return error(400, 'Commands count must be between 0 and 1,000.')
    if (servers !== undefined && !isIntegerIn(servers, 0, 10_000_000))
      return error(400, 'Server count must be between 0 and 10 Million.')
    const refused = this.keyRefusal(id, req)
    if (refused !== undefined) return refused
    const bot = this.bot(id)

    const now = this.now()
    if (
      now - Math.max(bot.commandsUpdatedAt.getTime(), bot.serversUpdatedAt.getTime()) <
      SIX_HOURS
    ) {
      bot.strikes = [...bot.strikes.filter(t => now - t.getTime() < SIX_HOURS), new Date(now)]
      if (bot.strikes.length >= 5) {
        // Revoked and unset (the key check passed, so it had one): the bot has no key until the
        // owner generates one.
        bot.revokedKeys.add(bot.apiKey!)
        bot.apiKey = undefined
        return error(410, FIFTH_STRIKE)
      }
      return error(429, EARLY)
    }
    if (servers !== undefined) {
      if (bot.discordDown) return error(500, 'Could not fetch server count.')
      // An internal answer without a count makes the comparison NaN, which lets any count through.
      const actual = bot.serverCountUnknown ? Number.NaN : bot.realServerCount
      const tolerance = Math.max(50, Math.floor(actual * 0.1))
      const provided = Number(servers)
      if (Math.abs(provided - actual) > tolerance) {
        return error(
          400,
          `The server count provided (${provided}) is too far off from the actual server count. ` +
            `It cannot differ by more than ${tolerance} from the actual server count, which is ${actual}.`
        )
      }
      bot.servers = provided
      bot.serversUpdatedAt = new Date(now)
    }
    if (commands !== undefined) {
      bot.commands = Number(commands)
      bot.commandsUpdatedAt = new Date(now)
    }
    return { status: 200, json: { success: true } }
  }

  /**
   * The key check of both keyed routes, first match wins: the refusal, or undefined for the bot's
   * current key.
   */
  private keyRefusal(id: string, req: http.IncomingMessage): Answer | undefined {
    const key = req.headers['authorization']
    if (key === undefined || key === '') return error(401, 'Authorization header is required.')
    const bot = this.bots.get(id)
    if (bot === undefined) return error(404, 'Bot not found.')
    if (bot.revokedKeys.has(key)) return error(410, 'This API key has been revoked.')
    if (key !== bot.apiKey) return error(401, 'Invalid API key.')
    return undefined
  }

  private publicRecord(id: string): Answer {
    const bot = this.bots.get(id)
    if (bot === undefined) return error(404, 'Bot not found.')
    if (!bot.verified) return error(403, 'This bot is not verified yet.')
    const { commands, servers, voters, verified } = bot
    return {
      status: 200,
      json: {
        id,
        username: 'Example Bot',
        short_description: 'A bot used in tests.',
        commands,
        commands_updated_at: bot.commandsUpdatedAt.toISOString(),
        servers,
        servers_updated_at: bot.serversUpdatedAt.toISOString(),
        votes: Object.values(voters).reduce((sum, v) => sum + v.vote, 0),
        verified
      }
    }
  }

  private voteStatus(id: string, userId: string, req: http.IncomingMessage): Answer {
    const refused = this.keyRefusal(id, req)
    if (refused !== undefined) return refused
    const entry = this.bot(id).voters[userId]
    const voted =
      entry?.lastVote != null && this.now() - entry.lastVote.getTime() < 24 * 60 * 60 * 1000
    return {
      status: 200,
      json: { voted, vote: entry?.vote ?? 0, lastVote: entry?.lastVote?.getTime() ?? null }
    }
  }
}

/** An integer in range; the live service also takes one written as a string of digits (`"12"`). */
function isIntegerIn(value: unknown, min: number, max: number): boolean {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  return typeof number === 'number' && Number.isInteger(number) && number >= min && number <= max
}

/**
 * Loopback fakes of Discord's API (the two reads the action makes) and of GitHub's
 * contents API, shaped after their documentation.
 */
import {
  type Answer,
  FakeServer,
  type Fault,
  type RecordedRequest,
  type Router
} from '../../scripts/emulator/server.js'

export type DiscordRoute = 'application' | 'commands'

export interface DiscordFakeOptions {
  token: string
  applicationId: string
  guildCount: number
  /** The application's global commands, as GET /applications/{id}/commands returns them. */
  commands: unknown[]
  /** Serve https with this key and certificate. */
  tls?: { key: string; cert: string }
}

/** Discord's API under `/api/v10`, with its `X-RateLimit-*` headers on every answer. */
export class DiscordFake {
  private readonly server: FakeServer<DiscordRoute>

  private constructor(private options: DiscordFakeOptions) {
    this.server = new FakeServer<DiscordRoute>(
      (method, path) => this.route(method, path),
      options.tls
    )
  }

  static async start(options: DiscordFakeOptions): Promise<DiscordFake> {
    const fake = new DiscordFake(options)
    await fake.server.listen('/api/v10')
    return fake
  }

  get url(): string {
    return this.server.url
  }

  get port(): number {
    return this.server.port
  }

  /** From now on, answers as the application `applicationId`, to its own `token`. */
  actAs(applicationId: string, token: string): void {
    this.options = { ...this.options, applicationId, token }
  }

  get requests(): RecordedRequest<DiscordRoute>[] {
    return this.server.requests
  }

  close(): Promise<void> {
    return this.server.close()
  }

  inject(route: DiscordRoute, fault: Fault): void {
    this.server.inject(route, fault)
  }

  /** A rate-limit 429 as Discord sends it: headers, and `retry_after` in float seconds. */
  static rateLimited(retryAfter: number): Fault {
    return {
      kind: 'answer',
      status: 429,
      headers: {
        'Content-Type': 'application/json',
        'Retry-After': String(Math.ceil(retryAfter)),
        'X-RateLimit-Limit': '5',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset-After': String(retryAfter),
        'X-RateLimit-Bucket': 'abcd1234',
        'X-RateLimit-Scope': 'user'
      },
      body: JSON.stringify({
        message: 'You are being rate limited.',
        retry_after: retryAfter,
        global: false
      })
    }
  }

  /**
   * Cloudflare's ban of the caller's IP address: a 429 with none of Discord's rate-limit headers.
   */
  static readonly banned: Fault = {
    kind: 'answer',
    status: 429,
    headers: { 'Content-Type': 'text/html' },
    body: '<!DOCTYPE html><html><head><title>Access denied | discord.com used Cloudflare to restrict access</title></head><body>Error 1015</body></html>'
  }

  private route(method: string, fullPath: string): ReturnType<Router<DiscordRoute>> {
    const path = fullPath.replace(/^\/api\/v10/, '')
    const withAuth =
      (handler: () => Answer) =>
      (req: { headers: Record<string, string | string[] | undefined> }): Answer =>
        req.headers['authorization'] === `Bot ${this.options.token}`
          ? withRateLimitHeaders(handler())
          : { status: 401, json: { message: '401: Unauthorized', code: 0 } }
    if (method === 'GET' && path === '/applications/@me') {
      return {
        route: 'application',
        reply: withAuth(() => ({
          status: 200,
          json: {
            id: this.options.applicationId,
            name: 'Example Bot',
            icon: null,
            description: '',
            bot_public: true,
            bot_require_code_grant: false,
            flags: 0,
            approximate_guild_count: this.options.guildCount,
            approximate_user_install_count: 12
          }
        }))
      }
    }
    const m = /^\/applications\/(\d+)\/commands$/.exec(path)
    if (method === 'GET' && m) {
      return {
        route: 'commands',
        reply: withAuth(() =>
          m[1] === this.options.applicationId
            ? { status: 200, json: this.options.commands }
            : { status: 403, json: { message: 'Missing Access', code: 50001 } }
        )
      }
    }
    return {
      route: 'other',
      reply: () => ({ status: 404, json: { message: '404: Not Found', code: 0 } })
    }
  }
}

function withRateLimitHeaders(answer: Answer): Answer {
  return {
    ...answer,
    headers: {
      ...answer.headers,
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '4',
      'X-RateLimit-Reset-After': '1.000',
      'X-RateLimit-Bucket': 'abcd1234'
    }
  }
}

export type GitHubRoute = 'contents' | 'repository'

/**
 * GitHub's `GET /repos/{owner}/{repo}/contents/{path}` for one repository at one commit, and its
 * `GET /repos/{owner}/{repo}` (the repository's visibility and last push).
 */
export class GitHubFake {
  private readonly server: FakeServer<GitHubRoute>

  private constructor(
    private readonly options: {
      repository: string
      sha: string
      token: string
      files: Record<string, string>
      /** The repository's record: public, last pushed to a day ago, unless told. */
      record?: { private?: boolean; pushed_at?: string | null }
    }
  ) {
    this.server = new FakeServer<GitHubRoute>((method, path) => this.route(method, path))
  }

  static async start(options: GitHubFake['options']): Promise<GitHubFake> {
    const fake = new GitHubFake(options)
    await fake.server.listen()
    return fake
  }

  get url(): string {
    return this.server.url
  }

  inject(route: GitHubRoute, fault: Fault): void {
    this.server.inject(route, fault)
  }

  get requests(): RecordedRequest<GitHubRoute>[] {
    return this.server.requests
  }

  close(): Promise<void> {
    return this.server.close()
  }

  private authorized(headers: Record<string, string | string[] | undefined>): boolean {
    const { token } = this.options
    return (
      headers['authorization'] === `token ${token}` ||
      headers['authorization'] === `Bearer ${token}`
    )
  }

  /** The repository's record, in the shape of GitHub's answer (the fields the action reads). */
  private record(
    req: { headers: Record<string, string | string[] | undefined> },
    name: string
  ): Answer {
    if (!this.authorized(req.headers)) return BAD_CREDENTIALS
    if (name !== this.options.repository)
      return {
        status: 404,
        json: {
          message: 'Not Found',
          documentation_url: 'https://docs.github.com/rest/repos/repos#get-a-repository',
          status: '404'
        }
      }
    const { private: hidden = false, pushed_at = new Date(Date.now() - 86_400_000).toISOString() } =
      this.options.record ?? {}
    return {
      status: 200,
      json: {
        id: 1,
        name: name.split('/')[1],
        full_name: name,
        private: hidden,
        visibility: hidden ? 'private' : 'public',
        default_branch: 'main',
        pushed_at,
        created_at: '2025-01-01T00:00:00Z',
        updated_at: pushed_at
      }
    }
  }

  private route(method: string, rawPath: string): ReturnType<Router<GitHubRoute>> {
    const own = /^\/repos\/([^/]+\/[^/?]+)(?:\?.*)?$/.exec(rawPath)
    if (method === 'GET' && own)
      return { route: 'repository', reply: req => this.record(req, own[1]!) }
    const m = /^\/repos\/([^/]+)\/([^/]+)\/contents\/(.+)$/.exec(rawPath)
    if (method !== 'GET' || !m)
      return { route: 'other', reply: () => ({ status: 404, json: { message: 'Not Found' } }) }
    return {
      route: 'contents',
      reply: req => {
        const { repository, sha, files } = this.options
        const url = new URL(req.url ?? '/', 'http://fake')
        if (!this.authorized(req.headers)) return BAD_CREDENTIALS
        const path = decodeURIComponent(m[3]!)
        const file = files[path]
        if (
          `${m[1]}/${m[2]}` !== repository ||
          url.searchParams.get('ref') !== sha ||
          file === undefined
        ) {
          return {
            status: 404,
            json: {
              message: 'Not Found',
              documentation_url: 'https://docs.github.com/rest/repos/contents',
              status: '404'
            }
          }
        }
        if (req.headers['accept'] === 'application/vnd.github.raw+json') {
          return {
            status: 200,
            headers: { 'Content-Type': 'application/vnd.github.raw+json; charset=utf-8' },
            text: file
          }
        }
        return {
          status: 200,
          json: {
            type: 'file',
            encoding: 'base64',
            path,
            content: Buffer.from(file).toString('base64'),
            sha: 'f'.repeat(40)
          }
        }
      }
    }
  }
}

const BAD_CREDENTIALS: Answer = {
  status: 401,
  json: {
    message: 'Bad credentials',
    documentation_url: 'https://docs.github.com/rest',
    status: '401'
  }
}

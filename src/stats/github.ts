import { getOctokit } from '@actions/github'
import { ActionError } from '../errors.js'
import { NetworkError } from '../http/transport.js'
import { type Policy, READ_DEFAULTS, SERVER_ERRORS, type Requests } from '../http/client.js'
import { excerpt } from '../text.js'

/**
 * How GitHub's API is read: 429s and 5xx retried (after their Retry-After), answers kept up to
 * their size.
 */
export const GITHUB_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: "GitHub's API",
  attempts: 3,
  retryStatuses: [429, ...SERVER_ERRORS],
  maxBodyBytes: 5 * 1024 * 1024 + 1
}

/** A repository on GitHub's REST API (the run's GITHUB_API_URL), with the token that reads it. */
export interface RepositoryAccess {
  readonly token: string
  /** `owner/name`. */
  readonly repository: string
  /** GitHub's REST API, from the run's GITHUB_API_URL. */
  readonly apiUrl: string
}

export interface RepositoryFile extends RepositoryAccess {
  readonly ref: string
  readonly path: string
}

/**
 * One file's bytes at a commit, through GitHub's contents API (raw, so files over 1 MB come whole)
 * at the run's GITHUB_API_URL. Octokit sends through the action's request helper, under the policy,
 * deadline and proxy settings of every other request.
 */
export async function readRepositoryFile(
  file: RepositoryFile,
  requests: Requests
): Promise<Buffer> {
  const [owner, repo] = file.repository.split('/')
  const octokit = octokitFor(file, requests, GITHUB_POLICY, { parseSuccessResponseBody: false })
  try {
    const response = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
      owner: owner ?? '',
      repo: repo ?? '',
      path: file.path,
      ref: file.ref,
      headers: { accept: 'application/vnd.github.raw+json' }
    })
    // A directory is listed as JSON whatever was asked for; a file comes raw.
    if (/^application\/json\b/i.test(response.headers['content-type'] ?? ''))
      throw new Error('the path is not a file')
    return Buffer.from(
      await new Response(
        response.data as unknown as ReadableStream<Uint8Array> | null
      ).arrayBuffer()
    )
  } catch (error) {
    throw apiFailure(error)
  }
}

/**
 * The repository's own record (`GET /repos/{owner}/{repo}`: its visibility, its last push), under
 * the caller's policy. Fails as readRepositoryFile does.
 */
export async function readRepository(
  access: RepositoryAccess,
  requests: Requests,
  policy: Policy
): Promise<{ readonly private?: unknown; readonly pushed_at?: unknown }> {
  const [owner, repo] = access.repository.split('/')
  const octokit = octokitFor(access, requests, policy, {})
  try {
    const response = await octokit.request('GET /repos/{owner}/{repo}', {
      owner: owner ?? '',
      repo: repo ?? ''
    })
    return response.data
  } catch (error) {
    throw apiFailure(error)
  }
}

/**
 * Octokit, sending through the action's request helper. Its request prints a deprecation notice
 * quoting GitHub's headers raw (the runner would read a command in it) with `request.log`, else
 * console.warn; `log` is for Octokit's plugins. Both silent.
 */
function octokitFor(
  access: RepositoryAccess,
  requests: Requests,
  policy: Policy,
  options: { parseSuccessResponseBody?: boolean }
): ReturnType<typeof getOctokit> {
  const request = { fetch: policyFetch(requests, policy), log: SILENT, ...options }
  return getOctokit(access.token, { baseUrl: access.apiUrl, log: SILENT, request })
}

/**
 * What a failed read of GitHub's API throws. A stop or the step's deadline, met inside Octokit's
 * fetch, comes back wrapped: the run's own end, thrown as it is. Otherwise an Error whose message
 * holds only the status and GitHub's words (Octokit's errors carry the request), with `network`
 * set when GitHub's API could not be reached at all: network advice, not repository advice; and
 * `redirect` when it answered with one, which no permission fixes.
 */
function apiFailure(error: unknown): Error {
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof ActionError) return cause
  if (cause instanceof NetworkError)
    return Object.assign(new Error(cause.message), { network: true })
  if ((cause as { redirect?: unknown } | undefined)?.redirect === true) return cause as Error
  const status = (error as { status?: unknown }).status
  const raw = error instanceof Error ? (error.message.split(' - ')[0] ?? '') : String(error)
  const message = /^\s*</.test(raw) ? 'an HTML error page' : excerpt(raw)
  return new Error(typeof status === 'number' && status !== 500 ? `${status}: ${message}` : message)
}

const quiet = (): void => {}
const SILENT = { debug: quiet, info: quiet, warn: quiet, error: quiet }

/** The address a `fetch` call names, in any of the forms it accepts. */
function urlOf(input: string | URL | Request): string {
  if (typeof input === 'string') return input
  if (input instanceof URL) return input.href
  return input.url
}

/** A `fetch` for Octokit's GETs (no body) that sends through the request helper. */
function policyFetch(requests: Requests, policy: Policy): typeof fetch {
  return async (input, init) => {
    const url = urlOf(input)
    const sent = Object.fromEntries(new Headers(init?.headers).entries())
    const answer = await requests.send({ method: 'GET', url, headers: sent }, policy)
    // Octokit takes any status below 400 for the file: a redirect's body would be read as it.
    if (answer.status >= 300 && answer.status < 400) {
      const redirect = new Error(`${answer.status}, a redirect, which is not followed`)
      throw Object.assign(redirect, { redirect: true })
    }
    if (answer.truncated)
      throw new Error(`the answer is larger than ${policy.maxBodyBytes - 1} bytes`)
    const headers = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    }
    const empty = answer.status === 204
    return new Response(empty ? null : (answer.bytes ?? answer.text), {
      status: answer.status,
      headers
    })
  }
}

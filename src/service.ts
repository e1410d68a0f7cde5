import type { HttpAnswer } from './http/transport.js'
import { excerpt } from './text.js'
import { USER_AGENT } from './version.js'

/**
 * What both modes know of the service: a keyed request's headers, its own words in an answer (the
 * key check: keys.ts).
 */

/** Headers of a request that carries the key: the bare key, no scheme word (the service's rule). */
export function keyedHeaders(apiKey: string): Record<string, string> {
  return {
    Authorization: apiKey,
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': USER_AGENT
  }
}

/** The service's `error` text when it sent one (redacted, on one line, cut short). */
export function serviceError(answer: HttpAnswer): string | undefined {
  const json = answer.json as { error?: unknown } | undefined
  return typeof json?.error === 'string' && json.error.trim() !== ''
    ? excerpt(json.error, 300)
    : undefined
}

/**
 * The service's `error` text, else a short description of an answer that is not the service's JSON.
 */
export function serviceMessage(answer: HttpAnswer): string | undefined {
  const said = serviceError(answer)
  if (said !== undefined || answer.text.trim() === '' || answer.json !== undefined) return said
  const type = String(answer.headers['content-type'] ?? 'unknown type').split(';')[0]
  const size = answer.truncated ? 'a large body' : `${Buffer.byteLength(answer.text)} bytes`
  return `a non-JSON answer (${type}, ${size})`
}

/** The vote route's own answer: a JSON object with a boolean `voted` (the live service's shape). */
export function isVoteAnswer(
  json: unknown
): json is { voted: boolean; vote?: unknown; lastVote?: unknown } {
  return (
    typeof json === 'object' &&
    json !== null &&
    typeof (json as { voted?: unknown }).voted === 'boolean'
  )
}

import { ActionError } from './errors.js'
import { type HttpAnswer, NetworkError } from './http/transport.js'
import { POLICIES, type Requests } from './http/client.js'
import { excerpt } from './text.js'
import { USER_AGENT } from './version.js'

/**
 * What both modes know of the service: the headers a keyed request carries, the service's own
 * words in an answer, the advice for an answer about the key or the bot (401, 404, 410: one
 * home for each), and the key check that spends no update.
 */

/** Headers of a request that carries the key: the bare key, no scheme word (the service's rule). */
export function keyedHeaders(apiKey: string): Record<string, string> {
  return { Authorization: apiKey, 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': USER_AGENT }
}

/** The service's `error` text when it sent one (redacted, on one line, cut short). */
export function serviceError(answer: HttpAnswer): string | undefined {
  const json = answer.json as { error?: unknown } | undefined
  return typeof json?.error === 'string' && json.error.trim() !== '' ? excerpt(json.error, 300) : undefined
}

/** The service's `error` text, else a short description of an answer that is not the service's JSON. */
export function serviceMessage(answer: HttpAnswer): string | undefined {
  const said = serviceError(answer)
  if (said !== undefined || answer.text.trim() === '' || answer.json !== undefined) return said
  const type = String(answer.headers['content-type'] ?? 'unknown type').split(';')[0]
  const size = answer.truncated ? 'a large body' : `${Buffer.byteLength(answer.text)} bytes`
  return `a non-JSON answer (${type}, ${size})`
}

/** The live service's text for a key its owner replaced by generating a new one. */
const REGENERATED = /^This API key has been revoked\.?$/i
/** The strike revocation: `Your API key has been revoked due to spamming the stats API. ...` */
const STRIKES = /revoked due to spamming/i

/**
 * What to do after an answer about the key or the bot, or undefined for any other status.
 * The two 410 texts mean different things: a key replaced by a new one on the dashboard, and a
 * key revoked for five strikes within 6 hours.
 */
export function keyAdvice(status: number, serviceText: string | undefined, botId: string): string | undefined {
  switch (status) {
    case 401:
      return (
        "The API key was refused: the api-key secret is wrong or outdated. Copy the current key from the bot's " +
        'manage page on discord.place into the secret (regenerating a key invalidates the old one).'
      )
    case 404:
      return `The service lists no bot with ID ${botId}. Check bot-id, and that the bot is listed on discord.place.`
    case 410:
      if (serviceText !== undefined && REGENERATED.test(serviceText.trim())) {
        return (
          "The API key was revoked: a new key was generated on the bot's manage page, which revokes the old one " +
          '(or the service revoked it earlier for refused updates). Store the current key in the api-key secret.'
        )
      }
      if (serviceText !== undefined && STRIKES.test(serviceText)) {
        return (
          'The API key was revoked because too many updates were refused as early (5 within 6 hours). ' +
          "Generate a new key on the bot's manage page on discord.place, store it in the secret, and run this " +
          'action at most once every 6 hours with cooldown-check: true, in one concurrency group per bot.'
        )
      }
      // A text the service's route code does not send (a gateway, a changed service): both causes.
      return (
        "The API key was revoked: either a new key was generated on the bot's manage page, or the service revoked it " +
        "after 5 updates refused as early within 6 hours. Store the current key from the bot's manage page in the " +
        'api-key secret, and run this action at most once every 6 hours, in one concurrency group per bot.'
      )
    default:
      return undefined
  }
}

/** What the key check found: `valid`, or `unchecked` with why (the check could not tell). A bad key throws. */
export type KeyCheck = { readonly state: 'valid' } | { readonly state: 'unchecked'; readonly reason: string }

/**
 * Checks the API key with a request that spends no update: the authenticated vote route, asked
 * about the bot itself (`GET /bots/{id}/voters/{id}`), answers 200 for a good key and 401 or 410
 * for a bad one, and no strike is ever at stake. Runs that send nothing (a skip, a dry run) use
 * it, so a wrong or replaced key fails the step now, not at the next update hours later.
 * An answer that says nothing about the key (the vote limiter, a 5xx, no connection) leaves it
 * unchecked: that is no reason to fail a run that had nothing to send.
 */
export async function checkKey(
  plan: { readonly baseUrl: string; readonly botId: string; readonly apiKey: string },
  deps: { readonly requests: Requests; readonly log: (line: string) => void }
): Promise<KeyCheck> {
  deps.log(`Checking the API key (GET ${plan.baseUrl}/bots/${plan.botId}/voters/${plan.botId}, which spends no update).`)
  let answer: HttpAnswer
  try {
    answer = await deps.requests.send(
      { method: 'GET', url: `${plan.baseUrl}/bots/${plan.botId}/voters/${plan.botId}`, headers: keyedHeaders(plan.apiKey) },
      POLICIES.keyCheck
    )
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    return { state: 'unchecked', reason: error.message }
  }
  if (answer.status === 200 || answer.status === 204) return { state: 'valid' }
  const said = serviceError(answer)
  const advice = keyAdvice(answer.status, said, plan.botId)
  if (advice !== undefined) {
    throw new ActionError(`The API key check was answered ${answer.status}${said === undefined ? '' : ` with "${said}"`}. ${advice}`)
  }
  return { state: 'unchecked', reason: `the service answered ${answer.status}` }
}

import { ActionError } from './errors.js'
import { type Policy, READ_DEFAULTS, type Requests, SERVER_ERRORS } from './http/client.js'
import { type HttpAnswer, NetworkError } from './http/transport.js'
import { isVoteAnswer, keyedHeaders, serviceError } from './service.js'

/**
 * The key and the bot, in both modes: what an answer about them means, and the key check that
 * spends no update.
 */

/**
 * The live service's text at the fifth strike: `Your API key has been revoked due to spamming the
 * stats API. ...`
 */
const FIFTH_STRIKE = /revoked due to spamming/i

/**
 * Whether a 410's text is the service's answer to the fifth strike: the update that revoked the
 * key.
 */
const isFifthStrike = (serviceText: string | undefined): boolean =>
  serviceText !== undefined && FIFTH_STRIKE.test(serviceText)

const revoked = (when: string, botId: string): string =>
  `${when} Generate a new key on the bot's manage page on discord.place (if not done yet) and store it in the secret passed as api-key (DISCORD_PLACE_API_KEY in the quick start). ` +
  'Then keep updates 6 hours apart: keep cooldown-check: true, schedule runs every 8 hours, and put every stats job ' +
  `for this bot in one concurrency group (discord-place-stats-${botId}).`

/**
 * The answers about the key or the bot, in both modes: the headline's words and what to do.
 *
 * The service's route code revokes a key only at the fifth update refused as early within 6
 * hours: it answers that update "Your API key has been revoked due to spamming…", and every
 * later use of the key, on this run or a later one, "This API key has been revoked.", even once
 * the owner has generated a new key the secret does not hold yet. So a 410 always means
 * strikes, whatever its text. A key the owner regenerated or deleted on the manage page is not
 * revoked: it is answered 401, like a mistyped key or another bot's key.
 */
export const KEY_ANSWERS = {
  401: {
    headline: 'API key refused',
    advice: () =>
      "The API key was refused: the secret passed as api-key (DISCORD_PLACE_API_KEY in the quick start) does not hold this bot's current key. It may be mistyped, regenerated or " +
      "deleted on the bot's manage page since (the old key then stops working), or another bot's key (each bot has its own). " +
      "Copy the current key from this bot's manage page on discord.place into the secret."
  },
  404: {
    headline: 'bot not listed on discord.place',
    advice: (f: { botId: string }) =>
      `The service lists no bot with ID ${f.botId}. Check bot-id, and that the bot is listed on discord.place.`
  },
  '410-fifth': {
    headline: 'API key revoked (strikes)',
    advice: (f: { botId: string }) =>
      revoked(
        'This update was the fifth refused as early within 6 hours (strikes), so the service revoked the key.',
        f.botId
      )
  },
  410: {
    headline: 'API key revoked (strikes)',
    advice: (f: { botId: string }) =>
      revoked(
        'The service revoked the key after five updates were refused as early within 6 hours (strikes), on this run or an ' +
          'earlier one; a revoked key stays revoked.',
        f.botId
      )
  }
}

export type KeyAnswer = keyof typeof KEY_ANSWERS

/** Which answer about the key or the bot a status is (401, 404, 410), else undefined. */
export function keyAnswerOf(
  status: number,
  serviceText: string | undefined
): KeyAnswer | undefined {
  if (status === 410 && isFifthStrike(serviceText)) return '410-fifth'
  return status === 401 || status === 404 || status === 410 ? status : undefined
}

/** What to do after an answer about the key or the bot, or undefined for any other status. */
export function keyAdvice(
  status: number,
  serviceText: string | undefined,
  botId: string
): string | undefined {
  const answer = keyAnswerOf(status, serviceText)
  return answer === undefined ? undefined : KEY_ANSWERS[answer].advice({ botId })
}

/**
 * The headline's few words for an answer about the key or the bot (401, 404, 410), else undefined.
 */
export function keyHeadline(status: number): string | undefined {
  const answer = keyAnswerOf(status, undefined)
  return answer === undefined ? undefined : KEY_ANSWERS[answer].headline
}

/**
 * The key check of a run that sends nothing: a second try after a 5xx or a lost connection,
 * never a wait for the vote limiter (its Retry-After runs to 300 s): the run then goes on
 * with the key unchecked.
 */
export const KEY_CHECK_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: 'the API key check',
  attempts: 2,
  retryStatuses: SERVER_ERRORS,
  maxRetryAfterMs: 5_000
}

/**
 * What the key check found: `valid`, or `unchecked` with why (the check could not tell). A bad key
 * throws.
 */
export type KeyCheck =
  { readonly state: 'valid' } | { readonly state: 'unchecked'; readonly reason: string }

/**
 * Checks the API key with a request that spends no update: the authenticated vote route, asked
 * about the bot itself (`GET /bots/{id}/voters/{id}`), answers its JSON (or 204) for a good key
 * and 401 or 410 for a bad one, and no strike is ever at stake. Runs that send nothing (a skip,
 * a dry run) use it, so a wrong, replaced or revoked key fails the step now, not at the next
 * update hours later. Only the service's own answer passes the key: any other 200 (a captive
 * portal's or a proxy's page) leaves it unchecked, as does an answer that says nothing about the
 * key (the vote limiter, a 5xx, no connection); that is no reason to fail a run that had nothing
 * to send, and the caller warns that the key was not checked.
 */
export async function checkKey(
  plan: { readonly baseUrl: string; readonly botId: string; readonly apiKey: string },
  deps: { readonly requests: Requests; readonly log: (line: string) => void }
): Promise<KeyCheck> {
  deps.log(
    `Checking the API key (GET ${plan.baseUrl}/bots/${plan.botId}/voters/${plan.botId}, which spends no update).`
  )
  let answer: HttpAnswer
  try {
    answer = await deps.requests.send(
      {
        method: 'GET',
        url: `${plan.baseUrl}/bots/${plan.botId}/voters/${plan.botId}`,
        headers: keyedHeaders(plan.apiKey)
      },
      KEY_CHECK_POLICY
    )
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    return { state: 'unchecked', reason: error.message }
  }
  if (answer.status === 204 || (answer.status === 200 && isVoteAnswer(answer.json)))
    return { state: 'valid' }
  if (answer.status === 200) {
    // A captive portal's or a proxy's page answers 200 too, and says nothing about the key.
    return {
      state: 'unchecked',
      reason:
        "a 200 that is not the service's answer (no JSON with a voted field: a portal or proxy page?)"
    }
  }
  const said = serviceError(answer)
  const advice = keyAdvice(answer.status, said, plan.botId)
  if (advice !== undefined) {
    throw new ActionError(
      `The API key check was answered ${answer.status}${said === undefined ? '' : ` with "${said}"`}. ${advice}`,
      {
        headline: keyHeadline(answer.status)
      }
    )
  }
  return { state: 'unchecked', reason: `the service answered ${answer.status}` }
}

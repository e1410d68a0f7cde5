import type { HttpAnswer, NetworkError } from '../http/transport.js'
import { keyAdvice } from '../service.js'

/** What the stats route's answers mean, and what the person reading the log should do. */

/**
 * Which of the service's two 429s an answer is. The request limiter (2 counted requests per
 * 30 minutes per bot) answers before looking at anything: `Retry-After`, `retry_after` and
 * "Too many requests"; nothing was stored and no strike counted. The 6-hour rule answers
 * without `Retry-After` or `retry_after`, and that refusal is a strike.
 */
export function kindOf429(answer: HttpAnswer): 'limiter' | 'six-hours' {
  const body = answer.json as { retry_after?: unknown; error?: unknown } | undefined
  if (answer.headers['retry-after'] !== undefined || body?.retry_after !== undefined) return 'limiter'
  return typeof body?.error === 'string' && /too many requests/i.test(body.error) ? 'limiter' : 'six-hours'
}

/**
 * A failure after the status line and headers arrived (the body cut off, or too slow) is an
 * answer: the service received the update and decided. Its status decides the outcome; the
 * body is not there to read.
 */
export function answerFromStatusLine(error: NetworkError): HttpAnswer | undefined {
  if (error.answered === undefined) return undefined
  return { status: error.answered.status, headers: error.answered.headers, text: '', truncated: true, json: undefined }
}

/** One line for a refused update: what the service said, and what to do about it. */
export function explainFailure(
  answer: HttpAnswer,
  serviceText: string | undefined,
  plan: { readonly botId: string; readonly body: { command_count?: number; server_count?: number } }
): string {
  const said = `the service answered ${answer.status}${serviceText === undefined ? '' : ` with "${serviceText}"`}`
  const advice = adviceFor(answer.status, serviceText, plan)
  return `Stats update failed: ${said}. ${advice}`
}

function adviceFor(
  status: number,
  serviceText: string | undefined,
  plan: { readonly botId: string; readonly body: { command_count?: number; server_count?: number } }
): string {
  switch (status) {
    case 400:
      if (plan.body.server_count !== undefined && !/command/i.test(serviceText ?? '')) {
        return (
          'The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot. ' +
          'Send the count your bot sees (its guild cache), or read it from Discord.'
        )
      }
      return 'Check command-count (0 to 1000) and server-count (0 to 10000000).'
    case 401:
    case 404:
    case 410:
      return keyAdvice(status, serviceText, plan.botId)!
    default:
      if (status >= 300 && status < 400) {
        return (
          'A redirect is not followed: a request carrying the API key never goes to another address. ' +
          "Set base-url to the service's own address."
        )
      }
      if (status >= 500) {
        return (
          'The service failed on its side; nothing in the workflow needs to change. The update was not repeated ' +
          '(a second update could count as an early one); the next run will try again.'
        )
      }
      return 'This answer was not expected; the update was not repeated. Check base-url and the service status.'
  }
}

import * as core from '@actions/core'
import { ActionError, StoppedError } from './errors.js'
import { Requests, realClock } from './http/client.js'
import { readSettings } from './settings.js'
import { reportStats } from './stats/report.js'
import { runStats } from './stats/update.js'
import { failureSection, writeSection } from './summary.js'
import { redact } from './secrets.js'
import { annotationText, logText } from './text.js'

/**
 * A log line of the run's own, with text from outside in it: redacted, on one line, of bounded
 * length.
 */
const log = (line: string): void => core.info(logText(line))

/**
 * The action: settings, then the mode (stats or vote-check), then the mode's report (outputs,
 * annotations, job summary). The one place that decides whether the step fails. A cancelled
 * workflow or a runner's time limit ends the step with SIGINT, then SIGTERM: it fires the run's one
 * AbortSignal, and the mode reports exactly what it had sent and what was answered.
 */
export async function run(): Promise<void> {
  const stop = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => stop.abort(new StoppedError(signal))
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  try {
    const settings = readSettings()
    for (const note of settings.notes) log(note)
    const requests = new Requests(
      { attemptTimeoutMs: settings.requestTimeoutMs, totalMs: settings.timeoutMs },
      realClock,
      stop.signal
    )
    const deps = { requests, log }
    // Vote-check mode is loaded only when it runs: a stats run loads nothing of it.
    let failure: string | undefined
    if (settings.mode === 'stats') {
      failure = await reportStats(settings, await runStats(settings, deps))
    } else {
      const [{ runVotes }, { reportVotes }] = await Promise.all([
        import('./votes/check.js'),
        import('./votes/report.js')
      ])
      failure = await reportVotes(settings, await runVotes(settings, deps))
    }
    if (failure !== undefined) core.setFailed(annotationText(failure))
  } catch (error) {
    // Bad input, or a bug: nothing of a mode's own to report.
    const message = annotationText(failureMessage(error))
    core.setOutput('result', 'failed')
    core.setFailed(message)
    const known = error instanceof ActionError ? error : undefined
    await writeSection(summary =>
      failureSection(
        summary,
        message,
        known?.botId,
        known === undefined ? 'internal error' : known.headline
      )
    )
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
  }
}

/** Expected failures carry a message for the user; anything else is a bug, reported as one. */
function failureMessage(error: unknown): string {
  if (error instanceof ActionError) return redact(error.message)
  if (error instanceof Error && error.stack !== undefined) core.debug(annotationText(error.stack))
  const detail = error instanceof Error ? error.message : String(error)
  return redact(`Unexpected internal error: ${detail}. Please report it with this log.`)
}

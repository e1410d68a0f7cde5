import * as core from '@actions/core'
import { resolveCounts } from './counts/index.js'
import { ActionError } from './errors.js'
import { announce, reportCounts, writeOutputs, writeSummary, type RunState } from './report.js'
import { updateStats } from './service/stats.js'
import { readSettings } from './settings.js'

/** Per request: connect, send and read the whole answer. */
const REQUEST_TIMEOUT_MS = 30_000

/**
 * The action: settings -> counts -> service -> report. The one place that decides whether
 * the step fails; the report is written whatever happens.
 */
export async function run(): Promise<void> {
  const state: RunState = {}
  try {
    const settings = (state.settings = readSettings())
    const counts = (state.counts = await resolveCounts(settings, { timeoutMs: REQUEST_TIMEOUT_MS, log: line => core.info(line) }))
    reportCounts(counts)

    const outcome = (state.outcome = await updateStats(
      {
        baseUrl: settings.baseUrl,
        botId: settings.botId,
        apiKey: settings.apiKey,
        body: { command_count: counts.command?.value, server_count: counts.server?.value },
        dryRun: settings.dryRun,
        cooldownCheck: settings.cooldownCheck,
        timeoutMs: REQUEST_TIMEOUT_MS
      },
      { now: () => new Date(), log: line => core.info(line) }
    ))
    if (outcome.error !== undefined) throw outcome.error
    announce(outcome)
  } catch (error) {
    state.failure = failureMessage(error)
    core.setFailed(state.failure)
  } finally {
    writeOutputs(state)
    await writeSummary(state)
  }
}

/** Expected failures carry a message for the user; anything else is a bug, reported as one. */
function failureMessage(error: unknown): string {
  if (error instanceof ActionError) return error.message
  if (error instanceof Error && error.stack !== undefined) core.debug(error.stack)
  const detail = error instanceof Error ? error.message : String(error)
  return `Unexpected internal error: ${detail}. Please report it with this log.`
}

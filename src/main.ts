import * as core from '@actions/core'
import { resolveCounts } from './counts/index.js'
import { ActionError } from './errors.js'
import { logLine, redact } from './redact.js'
import { announce, announceVotes, type RunState, reportCounts, writeOutputs, writeSummary } from './report.js'
import { POLICIES, Requests } from './requests.js'
import { updateStats } from './service/stats.js'
import { checkVotes } from './service/votes.js'
import { readSettings, type StatsSettings, type VoteSettings } from './settings.js'

const log = (line: string): void => core.info(logLine(line))

/**
 * The action: settings -> counts -> service -> report (or, in vote-check mode, settings ->
 * votes -> report). The one place that decides whether the step fails; the report is
 * written whatever happens.
 */
export async function run(): Promise<void> {
  const state: RunState = {}
  let requests: Requests | undefined
  let reporting = false
  // A cancelled workflow or a runner's time limit ends the step with a signal (SIGINT, then
  // SIGTERM). Whatever is waiting or in flight, the step then says what it had sent, writes its
  // outputs and summary, and exits at once instead of finishing its waits.
  const stop = (signal: NodeJS.Signals): void => {
    if (reporting) return
    reporting = true
    state.failure = `The step was stopped by ${signal} (a cancelled workflow or a time limit). ${whatWasSent(state, requests)}`
    core.setFailed(state.failure)
    void report(state).finally(() => process.exit(1))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  try {
    const settings = readSettings()
    state.settings = settings
    for (const note of settings.notes) log(note)
    requests = new Requests({ attemptTimeoutMs: settings.requestTimeoutMs, totalMs: settings.timeoutMs })
    if (settings.mode === 'vote-check') await voteCheck(settings, requests, state)
    else await stats(settings, requests, state)
  } catch (error) {
    // After a signal, the stopped run's own failure is already reported.
    if (!reporting) {
      state.failure = failureMessage(error)
      core.setFailed(state.failure)
    }
  } finally {
    if (!reporting) {
      reporting = true
      await report(state)
    }
    process.off('SIGTERM', stop)
    process.off('SIGINT', stop)
  }
}

/** For a stopped run: what reached the service, from the request journal. */
function whatWasSent(state: RunState, requests: Requests | undefined): string {
  const journal = requests?.journal ?? []
  if (state.settings?.mode === 'vote-check') {
    const answered = journal.filter(attempt => attempt.what === POLICIES.vote.name && attempt.state === 'answered').length
    return `${answered} vote check(s) had been answered; no result is reported for an unfinished check.`
  }
  const update = journal.filter(attempt => attempt.what === POLICIES.stats.name).at(-1)
  if (update === undefined) return state.settings?.dryRun ? 'Nothing was sent (dry run).' : 'The stats update was not sent.'
  if (update.state === 'answered') return `The stats update was sent and answered ${update.status}.`
  return (
    'The stats update was sent, and no answer came back: the service may have stored it. ' +
    'With cooldown-check: true the next run reads the public record first and does not send it twice.'
  )
}

/**
 * Outputs, then the summary, whatever happened. The report must not turn a finished run into
 * a crash: outputs that cannot be written (GITHUB_OUTPUT unwritable) fail the step with one
 * clear error, and the summary is still written and says so.
 */
async function report(state: RunState): Promise<void> {
  let outputsFailure: string | undefined
  try {
    writeOutputs(state)
  } catch (error) {
    outputsFailure = redact(
      `The step's outputs could not be written to GITHUB_OUTPUT (${error instanceof Error ? error.message : String(error)}); ` +
        'later steps will not see them. Check that the runner can write its temporary files (disk space, permissions).'
    )
  }
  if (outputsFailure !== undefined && state.failure === undefined) {
    state.failure = outputsFailure
    core.setFailed(outputsFailure)
  } else if (outputsFailure !== undefined) {
    core.warning(outputsFailure)
  }
  await writeSummary(state)
}

async function stats(settings: StatsSettings, requests: Requests, state: RunState): Promise<void> {
  const counts = await resolveCounts(settings, { requests, log })
  state.counts = counts
  reportCounts(counts)
  const outcome = await updateStats(
    {
      baseUrl: settings.baseUrl,
      botId: settings.botId,
      apiKey: settings.apiKey,
      body: { command_count: counts.command?.value, server_count: counts.server?.value },
      dryRun: settings.dryRun,
      cooldownCheck: settings.cooldownCheck
    },
    { requests, log }
  )
  state.outcome = outcome
  announce(outcome)
  if (outcome.error !== undefined) throw outcome.error
}

async function voteCheck(settings: VoteSettings, requests: Requests, state: RunState): Promise<void> {
  if (settings.dryRun || settings.apiKey === undefined) {
    log(`Dry run: would check the votes of ${settings.userIds.join(', ')}.`)
    return
  }
  const outcome = await checkVotes(
    {
      baseUrl: settings.baseUrl,
      botId: settings.botId,
      apiKey: settings.apiKey,
      userIds: settings.userIds,
      rateLimitWaitMs: settings.rateLimitWaitMs
    },
    { requests, log }
  )
  state.votes = outcome
  if (outcome.error !== undefined) throw outcome.error
  announceVotes(outcome)
  const missing = [...outcome.votes].filter(([, vote]) => !vote.voted).map(([id]) => id)
  if (settings.failIfNotVoted && missing.length > 0) {
    throw new ActionError(`Not voted in the last 24 hours: ${missing.join(', ')} (fail-if-not-voted is true).`)
  }
}

/** Expected failures carry a message for the user; anything else is a bug, reported as one. */
function failureMessage(error: unknown): string {
  if (error instanceof ActionError) return redact(error.message)
  if (error instanceof Error && error.stack !== undefined) core.debug(redact(error.stack))
  const detail = error instanceof Error ? error.message : String(error)
  return redact(`Unexpected internal error: ${detail}. Please report it with this log.`)
}

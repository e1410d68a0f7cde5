/**
 * An expected failure: its message is written for the person reading the workflow log (what went
 * wrong and what to do), so the action prints it as one `::error::` line and never a stack trace.
 */
export class ActionError extends Error {
  /**
   * Why the run failed, in a few words, for the summary's headline ("API key refused"); a caller
   * may add it.
   */
  headline: string | undefined
  /** The bot the run was for, once its ID was read: the headline names it. */
  botId: string | undefined

  constructor(message: string, options: { cause?: unknown; headline?: string } = {}) {
    super(message, options)
    this.name = 'ActionError'
    this.headline = options.headline
  }
}

/** A refused input value: the message always names the input, the problem and the fix. */
export class InputError extends ActionError {
  constructor(input: string, problem: string, fix: string) {
    super(`Input '${input}' ${problem}. ${fix}`, { headline: `bad input '${input}'` })
    this.name = 'InputError'
  }
}

/**
 * The step was stopped (SIGINT or SIGTERM: a cancelled workflow or a runner's time limit). The
 * abort reason of the run's one AbortSignal: every request and wait ends with it, and nothing new
 * is sent after it.
 */
export class StoppedError extends ActionError {
  constructor(
    readonly signal: string,
    /** The stop cut off a request already sent: the server may have received it. */
    readonly inFlight = false,
    /**
     * The status line of the answer the stop cut off, when it had arrived: the server did answer.
     */
    readonly answeredStatus?: number
  ) {
    super(`The step was stopped by ${signal} (a cancelled workflow or a time limit).`, {
      headline: `stopped by ${signal}`
    })
    this.name = 'StoppedError'
  }
}

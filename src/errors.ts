/**
 * An expected failure: its message is written for the person reading the workflow log
 * (what went wrong and what to do), so the action prints it as one `::error::` line and
 * never a stack trace.
 */
export class ActionError extends Error {
  /** The input at fault, when the failure is about an input. */
  readonly input: string | undefined

  constructor(message: string, options: { input?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.name = 'ActionError'
    this.input = options.input
  }
}

/** A refused input value: the message always names the input, the problem and the fix. */
export class InputError extends ActionError {
  constructor(input: string, problem: string, fix: string) {
    super(`Input '${input}' ${problem}. ${fix}`, { input })
    this.name = 'InputError'
  }
}

/**
 * The service answered, but not with success. Carries what the report needs even when
 * the step fails: the status, and the service's own `error` text when it sent one.
 */
export class ServiceError extends ActionError {
  readonly status: number
  readonly serviceMessage: string | undefined

  constructor(message: string, status: number, serviceMessage?: string) {
    super(message)
    this.name = 'ServiceError'
    this.status = status
    this.serviceMessage = serviceMessage
  }
}

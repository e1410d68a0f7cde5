/**
 * Every case of the tables in test/support/cases.ts, through run() in process: refused inputs,
 * credentials in the wrong input, inputs that try to start workflow commands, and the API key
 * echoed back by the service in every form. One run at a time: a run owns the process's
 * environment.
 */
import { describe, it } from 'vitest'
import * as cases from '../support/cases.js'
import { runInProcess } from '../support/step.js'

describe('cases.ts, in process', () => {
  it.for([...cases.REFUSALS, ...cases.MIX_UPS])('refused before any request: %s', refusal =>
    cases.expectRefused(runInProcess, refusal)
  )
  it.for(cases.INJECTIONS)(
    '%s with workflow-command lines: refused by name, and the runner finds no injected command',
    injection => cases.expectInjectionRefused(runInProcess, injection)
  )
  it.for(cases.LEGACY_INJECTIONS)(
    '%s holding ##[ on one line: refused, the syntax broken',
    injection => cases.expectInjectionRefused(runInProcess, injection)
  )
  it.for(cases.ECHOES)(
    'redacts the API key echoed back %s from the log, the annotation and the summary',
    echo => cases.expectEchoRedacted(runInProcess, echo)
  )
})

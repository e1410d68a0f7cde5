/**
 * Every case of the tables in test/support/cases.ts, through run() in process: refused inputs,
 * credentials in the wrong input, inputs that try to start workflow commands, and the API key
 * echoed back by the service in every form. One run at a time: a run owns the process's environment.
 */
import { describe, it } from 'vitest'
import * as cases from '../support/cases.js'
import { runInProcess } from '../support/step.js'

describe('refused inputs, before any request', () => {
  it.for(cases.REFUSALS)('%s', refusal => cases.expectRefused(runInProcess, refusal))
  it.for(cases.MIX_UPS)('%s: a credential that belongs elsewhere', mixUp => cases.expectMixUpRefused(runInProcess, mixUp))
})

describe('inputs that try to start workflow commands', () => {
  it.for(cases.INJECTIONS)('%s: refused by name, and the runner finds no injected command', injection =>
    cases.expectInjectionRefused(runInProcess, injection)
  )
  it.for(cases.LEGACY_INJECTIONS)('an input holding ##[ on one line: %s', injection =>
    cases.expectLegacyInjectionRefused(runInProcess, injection)
  )
})

describe('the API key echoed back by the service', () => {
  it.for(cases.ECHOES)('redacts the API key %s from the log, the annotation and the summary', echo =>
    cases.expectEchoRedacted(runInProcess, echo)
  )
})

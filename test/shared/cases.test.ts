/**
 * Every case of the tables in test/support/cases.ts, through run() in process: refused inputs,
 * credentials pasted into the wrong input, inputs that try to start workflow commands, and the
 * API key echoed back by the service in every form. The end-to-end files run a few cases of
 * each table through dist/ on Node 24. One run at a time: a run owns the process's environment.
 */
import { describe, it } from 'vitest'
import {
  ECHOES,
  expectEchoRedacted,
  expectInjectionRefused,
  expectLegacyInjectionRefused,
  expectMixUpRefused,
  expectRefused,
  INJECTIONS,
  LEGACY_INJECTIONS,
  MIX_UPS,
  REFUSALS
} from '../support/cases.js'
import { runInProcess } from '../support/step.js'

describe('refused inputs, before any request', () => {
  it.for(REFUSALS)('%s', refusal => expectRefused(runInProcess, refusal))
})

describe('credentials that belong elsewhere', () => {
  it.for(MIX_UPS)('%s: refused before any request', mixUp => expectMixUpRefused(runInProcess, mixUp))
})

describe('inputs that try to start workflow commands', () => {
  it.for(INJECTIONS)('%s: refused by name, and the runner finds no injected command', injection =>
    expectInjectionRefused(runInProcess, injection)
  )
  it.for(LEGACY_INJECTIONS)('an input holding ##[ on one line: %s', injection => expectLegacyInjectionRefused(runInProcess, injection))
})

describe('the API key echoed back by the service', () => {
  it.for(ECHOES)('redacts the API key %s from the log, the annotation and the summary', echo => expectEchoRedacted(runInProcess, echo))
})

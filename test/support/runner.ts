/**
 * The Actions runner's view of action.yml and of workflows, through GitHub's own parser
 * (`@actions/workflow-parser`, behind GitHub's Actions language service) and its expression
 * evaluator: `parseActionFile` refuses what the runner refuses ("Fail to load action.yml"), and
 * `inputEnvironment` sets `INPUT_*` as the runner does for a node action. The package ships its
 * schemas as JSON imports meant for bundlers: vitest loads it inline (vitest.config.ts).
 */
import { data, Evaluator, Lexer, Parser } from '@actions/expressions'
import {
  convertWorkflowTemplate,
  isBasicExpression,
  isString,
  NoOperationTraceWriter,
  parseWorkflow
} from '@actions/workflow-parser'
import { parseAction } from '@actions/workflow-parser/actions/action-parser'
import {
  type ActionInputDefinition,
  type ActionTemplate,
  convertActionTemplate
} from '@actions/workflow-parser/actions/action-template'
import type { FileProvider } from '@actions/workflow-parser/workflows/file-provider'

/**
 * Parses an action's metadata as the runner loads it: the errors (with file, line and column), and
 * the template when there are none.
 */
export function parseActionFile(
  name: string,
  content: string
): { errors: string[]; template: ActionTemplate | undefined } {
  const parsed = parseAction({ name, content }, new NoOperationTraceWriter())
  const errors = parsed.context.errors.getErrors().map(error => error.message)
  if (errors.length > 0 || parsed.value === undefined) return { errors, template: undefined }
  const template = convertActionTemplate(parsed.context, parsed.value)
  const more = parsed.context.errors.getErrors().map(error => error.message)
  return { errors: more, template: more.length > 0 ? undefined : template }
}

/**
 * Parses and converts a workflow file as GitHub does when it starts a run; returns its errors.
 * With `called`, a job that calls a reusable workflow is checked against that workflow as GitHub
 * fetches it: every input and secret passed is declared there, and every required one is passed.
 */
export async function workflowErrors(
  name: string,
  content: string,
  called?: FileProvider
): Promise<string[]> {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter())
  const errors = parsed.context.errors.getErrors().map(error => error.message)
  if (errors.length > 0 || parsed.value === undefined)
    return errors.length > 0 ? errors : [`${name}: not a workflow`]
  const template = await convertWorkflowTemplate(
    parsed.context,
    parsed.value,
    called,
    called === undefined ? undefined : { fetchReusableWorkflowDepth: 1 }
  )
  const converted = parsed.context.errors.getErrors().map(error => error.message)
  return [
    ...converted,
    // The template repeats the context's errors, most already naming the file.
    ...(template.errors ?? []).map(({ Message: m }) => (m.startsWith(name) ? m : `${name}: ${m}`))
  ].filter((m, i, all) => all.indexOf(m) === i)
}

/** The contexts the runner evaluates an input's default with; only `github.token` is used here. */
type DefaultContexts = { readonly github: { readonly token: string } }

/** The environment variable the runner sets for an input (`bot-id` -> `INPUT_BOT-ID`). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`
}

/**
 * `INPUT_*` for one step: what `with:` gives, else the evaluated default, else ''. Throws for an
 * input the action does not declare, naming it (the runner would only warn, and the action never
 * read it).
 */
export function inputEnvironment(
  action: ActionTemplate,
  given: Readonly<Record<string, string>>,
  contexts: DefaultContexts
): Record<string, string> {
  const declared = action.inputs ?? []
  const unknown = Object.keys(given).filter(name => !declared.some(input => input.id === name))
  if (unknown.length > 0) {
    throw new Error(
      `inputs not declared in action.yml: ${unknown.join(', ')} (valid inputs: ${declared.map(input => input.id).join(', ')})`
    )
  }
  const env: Record<string, string> = {}
  for (const input of declared) {
    env[inputVariable(input.id)] = given[input.id] ?? evaluateDefault(input.default, contexts)
  }
  return env
}

function evaluateDefault(
  token: ActionInputDefinition['default'],
  contexts: DefaultContexts
): string {
  if (token === undefined) return ''
  if (isString(token)) return token.value
  if (isBasicExpression(token)) {
    const lexed = new Lexer(token.expression).lex()
    const expression = new Parser(lexed.tokens, ['github'], []).parse()
    const github = new data.Dictionary({
      key: 'token',
      value: new data.StringData(contexts.github.token)
    })
    return new Evaluator(expression, new data.Dictionary({ key: 'github', value: github }))
      .evaluate()
      .coerceString()
  }
  // A number or boolean default (`default: 30`) arrives as text, as the runner passes it.
  return String((token as { value?: unknown }).value ?? '')
}

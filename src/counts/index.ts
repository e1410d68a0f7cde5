/** A count and where it came from, so the log and the summary can say so. */
export interface ResolvedCount {
  readonly value: number
  /** Human-readable origin, e.g. "input command-count". */
  readonly source: string
}

export interface Counts {
  readonly command: ResolvedCount | undefined
  readonly server: ResolvedCount | undefined
}

/** What resolving the counts needs from the settings. */
export interface CountInputs {
  readonly commandCount: number | undefined
  readonly serverCount: number | undefined
}

/**
 * Decides each count and records its source. Explicit inputs are the only source in this
 * version; a manifest and Discord's API come after them in precedence.
 */
export function resolveCounts(inputs: CountInputs): Counts {
  return {
    command: fromInput(inputs.commandCount, 'command-count'),
    server: fromInput(inputs.serverCount, 'server-count')
  }
}

function fromInput(value: number | undefined, input: string): ResolvedCount | undefined {
  return value === undefined ? undefined : { value, source: `input ${input}` }
}

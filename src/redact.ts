/**
 * The secrets this run holds, and their removal from any text that came from outside (an
 * answer's error text, a library's error message) before that text is cut, escaped or printed.
 *
 * The runner masks only the exact values registered with `::add-mask::`. A remote text that
 * echoes a secret in another form (URL- or JSON-encoded, HTML-escaped) would otherwise be
 * printed readable, and a Markdown-escaped copy in the job summary (`dpk\_…`) is not masked
 * at all. So every form of each secret is replaced here, and so is any run of at least
 * FRAGMENT characters copied from one: a service that quotes the first half of a key has
 * still leaked half a key.
 *
 * Plain module state, no runner protocol: `service/` and `counts/` use `redact` too.
 */

/** The shortest piece of a secret that counts as a leak on its own. */
export const FRAGMENT = 10

const REPLACEMENT = '***'

/** Every form of every secret, longest first, so that a form inside another is never left half-replaced. */
let forms: string[] = []
/** Every FRAGMENT-character window of every form. */
const pieces = new Set<string>()

/**
 * Remembers a secret (every form of it) for `redact`. Returns the forms a log line could carry
 * (as it is, URL- or JSON-encoded), for the runner's masks; the escaped forms only a summary
 * could carry are left to `redact`.
 */
export function addSecret(secret: string): string[] {
  if (secret.length === 0) return []
  const logged = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]
  const escaped = [
    encodeURI(secret),
    secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
    secret.replace(/([\\`*_[\]|~#!():@<>&"])/g, '\\$1'),
    Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, '')
  ]
  for (const form of [...logged, ...escaped]) {
    for (let i = 0; i + FRAGMENT <= form.length; i++) pieces.add(form.slice(i, i + FRAGMENT))
  }
  forms = [...new Set([...forms, ...logged, ...escaped])].filter(form => form.length > 0).sort((a, b) => b.length - a.length)
  return [...new Set(logged)]
}

/** Forgets every secret (tests only). */
export function clearSecrets(): void {
  forms = []
  pieces.clear()
}

/** `text` with every secret form, and every run of FRAGMENT or more characters copied from one, replaced by `***`. */
export function redact(text: string): string {
  if (forms.length === 0 || text.length === 0) return text
  let out = text
  for (const form of forms) {
    if (form.length >= 4 && out.includes(form)) out = out.split(form).join(REPLACEMENT)
  }
  return redactFragments(out)
}

/** Replaces each stretch of `text` that is covered by FRAGMENT-character windows found in a secret form. */
function redactFragments(text: string): string {
  if (text.length < FRAGMENT || pieces.size === 0) return text
  const covered = new Uint8Array(text.length)
  let any = false
  for (let i = 0; i + FRAGMENT <= text.length; i++) {
    if (pieces.has(text.slice(i, i + FRAGMENT))) {
      covered.fill(1, i, i + FRAGMENT)
      any = true
    }
  }
  if (!any) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    if (covered[i] === 0) out += text[i]
    else if (i === 0 || covered[i - 1] === 0) out += REPLACEMENT
  }
  return out
}

/**
 * Text for one log line: secrets redacted, and no line break or other control character, so
 * that no part of it can begin a line of its own, where the runner would read `::…` as a
 * workflow command.
 */
export function logLine(text: string): string {
  const line = redact(text).replace(CONTROL_RUNS, ' ')
  // The runner reads a line that begins with `::` (after spaces) as a command, so such a line
  // is shown with its colons apart.
  return /^\s*::/.test(line) ? line.replace('::', ': :') : line
}

/** C0 and C1 control characters (line breaks, tabs, escapes) and the Unicode line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
const CONTROL_RUNS = new RegExp(`${CONTROL_CHARACTER.source}+`, 'g')

/** Shorter lines of a secret are not masked on their own: they could be common words. */
const MIN_MASKED_PART = 8

/**
 * Masks a secret as a whole, never a common word in it. A token written with its scheme word
 * (`Bot xyz`, `Bearer xyz`) is also masked without it, and each line of a multi-line value
 * that is long enough on its own, because the runner masks line by line. A refused value is
 * still a secret, so this runs before any validation.
 */
export function maskSecret(secret: string, mask: (secret: string) => void): void {
  if (secret === '') return
  const parts = new Set([secret])
  const scheme = /^(?:Bot|Bearer)\s+(\S[\s\S]*)$/i.exec(secret)
  if (scheme) parts.add(scheme[1]!)
  for (const line of secret.split(/\r?\n/)) if (line.trim().length >= MIN_MASKED_PART) parts.add(line.trim())
  for (const part of parts) mask(part)
}

/**
 * The credentials of a proxy the action will use (`https_proxy=http://user:password@host`):
 * the password and the whole user:password pair, as written and decoded.
 */
export function proxyCredentials(env: Readonly<Record<string, string | undefined>>): string[] {
  const found = new Set<string>()
  for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
    const value = env[name]
    if (!value) continue
    let url: URL
    try {
      url = new URL(value)
    } catch {
      continue
    }
    if (url.password === '') continue
    for (const text of [url.password, `${url.username}:${url.password}`]) {
      found.add(text)
      try {
        found.add(decodeURIComponent(text))
      } catch {
        // Not valid percent-encoding: only the form as written can appear.
      }
    }
  }
  return [...found]
}

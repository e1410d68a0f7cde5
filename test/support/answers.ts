/**
 * Answers as the HTTP helper (src/http/transport.ts) returns them, for tests that read one answer.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { HttpAnswer } from '../../src/http/transport.js'

/** An answer with this body, its `json` parsed the way the helper does. */
export function answer(status: number, text = '', headers: IncomingHttpHeaders = {}): HttpAnswer {
  let json: unknown
  try {
    json = /^\s*[[{]/.test(text) ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status, headers, text, truncated: false, json }
}

/** A JSON answer, with the content type the service sends. */
export function jsonAnswer(
  status: number,
  body: unknown,
  headers: IncomingHttpHeaders = {}
): HttpAnswer {
  return answer(status, JSON.stringify(body), {
    'content-type': 'application/json; charset=utf-8',
    ...headers
  })
}

/** The live service's error shape (OpenAPI `ErrorResponse`). */
export function serviceError(status: number, error: string): HttpAnswer {
  return jsonAnswer(status, { success: false, error, status })
}

/** A proxy's error page, as Cloudflare serves it. */
export const HTML_PAGE =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>' +
  '<body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>'

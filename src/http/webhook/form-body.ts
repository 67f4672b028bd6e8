/**
 * Form-encoded webhook bodies. A browser submits a form in its page's encoding and does not say
 * which: a page still served as Windows-1252 (ISO-8859-1) sends `name=Jos%E9`, which is no UTF-8.
 * Parsed as UTF-8, that lead's name would be stored as the literal text `Jos%E9`. So a body whose
 * escapes are not UTF-8 is read as Windows-1252, the encoding such legacy pages use (and what a
 * browser reads a page labelled ISO-8859-1 as). Parsing itself is fast-querystring's, as
 * @fastify/formbody's default.
 */
import { parse } from 'fast-querystring'
import iconv from 'iconv-lite'

// Only an escape of a byte over 0x7F can make a body not UTF-8; most bodies have none.
const HIGH_BYTE_ESCAPE = /%[89a-f][0-9a-f]/i
const ESCAPE = /%([0-9a-f]{2})/gi
const ASCII_ONLY = /^[\x00-\x7f]*$/
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

export function parseFormBody(body: string): Record<string, unknown> {
  if (!HIGH_BYTE_ESCAPE.test(body) || !ASCII_ONLY.test(body) || escapesAreUtf8(body)) return parse(body)
  // Every escaped byte as the Windows-1252 character it is, escaped again as UTF-8 for the parser.
  return parse(body.replace(ESCAPE, (escape, hex: string) => {
    const byte = Number.parseInt(hex, 16)
    return byte < 0x80 ? escape : encodeURIComponent(iconv.decode(Buffer.of(byte), 'windows-1252'))
  }))
}

/** Whether the bytes the body's escapes spell (with its plain ASCII) are valid UTF-8. */
function escapesAreUtf8(body: string): boolean {
  const bytes = Buffer.from(body.replace(ESCAPE, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1')
  try {
    strictUtf8.decode(bytes)
    return true
  } catch {
    return false
  }
}

/**
 * XML webhook bodies (`application/xml`, `text/xml`), read with fast-xml-parser into the same nested
 * object a JSON body is, which intake then reads as paths (`<lead><contact><phone>` is
 * `lead.contact.phone`, matched on `phone`). Hostile XML gets a 400 before anything is recorded:
 *
 * - a DOCTYPE is refused outright: no lead needs one, and it is where entity expansion ("billion
 *   laughs") and external entities live; only XML's five predefined entities are read;
 * - nesting is bounded like JSON's (WEBHOOK_MAX_DEPTH), and the body's size by the route's limit;
 * - element names such as `__proto__` become data, never a prototype (the library renames them).
 *
 * Text is kept as text (`0312…` keeps its zero); attributes are not read.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'

export class XmlBodyError extends Error {
  readonly statusCode = 400
  constructor(message: string) {
    super(message)
    this.name = 'XmlBodyError'
  }
}

const DOCTYPE = /<!DOCTYPE|<!ENTITY/i

/** Parses an XML body into an object, or throws XmlBodyError (a 400) saying what is wrong with it. */
export function parseXmlBody(text: string, maxDepth: number): Record<string, unknown> {
  if (DOCTYPE.test(text)) throw new XmlBodyError('XML with a DOCTYPE or entity declarations is not accepted: send the lead without one')
  const depth = nestingDepth(text)
  if (depth > maxDepth) throw new XmlBodyError(`the body nests elements more than ${maxDepth} levels deep`)
  let valid: ReturnType<typeof XMLValidator.validate>
  try {
    valid = XMLValidator.validate(text)
  } catch (error) {
    // Whatever the validator trips on is the body's fault: a 400, never a 500.
    throw new XmlBodyError(`malformed XML: ${(error as Error).message.slice(0, 200)}`)
  }
  if (valid !== true) throw new XmlBodyError(`malformed XML: ${valid.err.msg} (line ${valid.err.line})`)
  const parser = new XMLParser({
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    trimValues: true,
    processEntities: { enabled: true, maxEntityCount: 0, maxTotalExpansions: 1000, maxExpandedLength: 100_000 },
    htmlEntities: false,
    maxNestedTags: maxDepth,
  })
  let parsed: unknown
  try {
    parsed = parser.parse(text)
  } catch (error) {
    throw new XmlBodyError(`malformed XML: ${(error as Error).message.slice(0, 200)}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.keys(parsed).length === 0) {
    throw new XmlBodyError('the XML body has no element')
  }
  return parsed as Record<string, unknown>
}

/**
 * How deep the body's elements nest, counted without parsing (so the parser and the validator never
 * recurse past the bound): opening tags add one, closing tags take one off, `<…/>`, `<?…?>`,
 * `<!--…-->` and `<![CDATA[…]]>` none.
 */
function nestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let at = text.indexOf('<')
  while (at !== -1) {
    const next = text.charAt(at + 1)
    if (text.startsWith('<!--', at)) {
      at = skipTo(text, '-->', at)
    } else if (text.startsWith('<![CDATA[', at)) {
      at = skipTo(text, ']]>', at)
    } else if (next === '?' || next === '!') {
      at = skipTo(text, '>', at)
    } else {
      const end = text.indexOf('>', at)
      if (end === -1) break
      if (next === '/') depth--
      else if (text.charAt(end - 1) !== '/') depth++
      if (depth > deepest) deepest = depth
      at = end
    }
    if (at === -1) break
    at = text.indexOf('<', at + 1)
  }
  return deepest
}

function skipTo(text: string, marker: string, from: number): number {
  const end = text.indexOf(marker, from)
  return end === -1 ? -1 : end + marker.length - 1
}

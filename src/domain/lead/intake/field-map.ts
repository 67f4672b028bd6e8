/**
 * A lead source's field map: which path of its bodies fills which Leadline field, for the names no
 * alias covers (`phone=contact.primary.number`). Set per source on the account (an account event, so
 * it is audited), and applied to the leads that arrive after it; the log keeps every lead as it came.
 */
import { DomainError } from '../../shared/decider.ts'
import { matchCoreField, type CoreField } from './field-aliases.ts'
import { matchConsentField, type ConsentField } from './consent.ts'

export interface FieldMapping {
  /** The Leadline field, as one of its accepted names (`phone`, `first_name`, `trustedform_cert_url`). */
  readonly field: string
  /** The path in the source's bodies: a name, or names joined by dots for nested objects and XML. */
  readonly path: string
}

export type FieldMap = readonly FieldMapping[]

export type FieldMapTarget =
  | { readonly kind: 'core'; readonly field: CoreField; readonly name: string }
  | { readonly kind: 'consent'; readonly field: ConsentField; readonly name: string }

/** `vendor-x`: lower-case letters, digits, `-` and `_`, as it is written in the webhook URL's `source`. */
export const SOURCE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/
export const MAX_MAPPINGS_PER_SOURCE = 50
export const MAX_FIELD_MAP_SOURCES = 100
export const MAX_PATH_LENGTH = 200

/** The field a mapping's left side names, or undefined when intake has no such field. */
export function fieldMapTarget(name: string): FieldMapTarget | undefined {
  const core = matchCoreField(name)
  if (core !== undefined) return { kind: 'core', field: core.field, name }
  // Whole names only: a target is a field's name, never a path.
  const consent = name.includes('.') ? undefined : matchConsentField(name)
  return consent === undefined ? undefined : { kind: 'consent', field: consent.field, name }
}

/** A source's name as stored: lower case; refused unless it fits SOURCE_NAME. */
export function sourceName(name: string): string {
  const lower = name.trim().toLowerCase()
  if (!SOURCE_NAME.test(lower)) {
    throw new DomainError('invalid_source', `source name ${JSON.stringify(name.slice(0, 70))} must be 1–64 lower-case letters, digits, - or _, starting with a letter or digit`)
  }
  return lower
}

/** Checks mappings (`field=path` parsed or given whole): every field known, every path sane, each field once. */
export function validateFieldMap(mappings: readonly FieldMapping[]): FieldMap {
  if (mappings.length === 0) throw new DomainError('invalid_field_map', 'a field map needs at least one mapping, such as phone=contact.primary.number')
  if (mappings.length > MAX_MAPPINGS_PER_SOURCE) throw new DomainError('invalid_field_map', `at most ${MAX_MAPPINGS_PER_SOURCE} mappings per source`)
  const seen = new Set<string>()
  return mappings.map(({ field, path }) => {
    const name = field.trim()
    const target = fieldMapTarget(name)
    if (target === undefined) {
      throw new DomainError('invalid_field_map', `${JSON.stringify(name.slice(0, 70))} is not a field Leadline reads: use one of its accepted names (phone, first_name, email, trustedform_cert_url, …; docs/lead-sources.md)`)
    }
    const key = `${target.kind}:${target.field}`
    if (seen.has(key)) throw new DomainError('invalid_field_map', `${name} is mapped twice`)
    seen.add(key)
    const trimmed = path.trim()
    if (trimmed === '' || trimmed.length > MAX_PATH_LENGTH || trimmed.startsWith('.') || trimmed.endsWith('.') || trimmed.includes('..')) {
      throw new DomainError('invalid_field_map', `the path for ${name} must be 1–${MAX_PATH_LENGTH} characters of names joined by single dots`)
    }
    return { field: name, path: trimmed }
  })
}

/** `phone=contact.primary.number` → a mapping; refused without an `=` or with an empty side. */
export function parseFieldMapping(text: string): FieldMapping {
  const at = text.indexOf('=')
  if (at <= 0 || at === text.length - 1) throw new DomainError('invalid_field_map', `${JSON.stringify(text.slice(0, 70))} is not FIELD=PATH (such as phone=contact.primary.number)`)
  return { field: text.slice(0, at), path: text.slice(at + 1) }
}

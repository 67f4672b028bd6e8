// Facebook-style lead-ads payloads (spec §4.1 behaviour 6) carry their form
// answers as `field_data: [{name, values: [...]}]`; flattening them lets the
// same alias matching serve both shapes.

import { isPresent } from './field-value.ts'

/**
 * `{"field_data":[{"name":..,"values":[..]}]}` → `{name: answer, ...}`, null when the body is not
 * that shape. An answer is its one non-empty value, or the list of them when there are several (a
 * multiple-choice question): intake then fills a known field with the first and keeps them all as
 * an extra field, so no answer is dropped. A name repeated in `field_data` adds its values to the
 * first one's. Other top-level members (`id`, `created_time`, `ad_name`, ...) are kept after the
 * form answers so they reach the lead as extra fields; a form answer wins over a top-level member
 * of the same name.
 */
export function flattenLeadAdsPayload(body: unknown): Record<string, unknown> | null {
  if (!isRecord(body) || !Array.isArray(body['field_data'])) return null
  const answers = new Map<string, unknown[]>()
  for (const entry of body['field_data']) {
    if (!isRecord(entry) || typeof entry['name'] !== 'string') continue
    const values = answers.get(entry['name']) ?? []
    values.push(...nonEmpty(entry['values']))
    answers.set(entry['name'], values)
  }
  // Null prototype: a form field named `__proto__` must become data, not a prototype.
  const flat: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [name, values] of answers) {
    if (values.length > 0) flat[name] = values.length === 1 ? values[0] : values
  }
  for (const name of Object.keys(body)) {
    if (name === 'field_data' || Object.hasOwn(flat, name)) continue
    flat[name] = body[name]
  }
  return flat
}

// Lead-ads send every answer as a list; its empty entries are no answer.
function nonEmpty(values: unknown): unknown[] {
  return (Array.isArray(values) ? values : [values]).filter(isPresent)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

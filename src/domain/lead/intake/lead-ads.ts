// Facebook-style lead-ads payloads (spec §4.1 behaviour 6) carry their form
// answers as `field_data: [{name, values: [...]}]`; flattening them lets the
// same alias matching serve both shapes.

/**
 * `{"field_data":[{"name":..,"values":[..]}]}` → `{name: firstValue, ...}`;
 * null when the body is not that shape. Other top-level members (`id`,
 * `created_time`, `ad_name`, ...) are kept after the form answers so they
 * reach the lead as extra fields; a form answer wins over a top-level member
 * of the same name.
 */
export function flattenLeadAdsPayload(body: unknown): Record<string, unknown> | null {
  if (!isRecord(body) || !Array.isArray(body['field_data'])) return null
  // Null prototype: a form field named `__proto__` must become data, not a prototype.
  const flat: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const entry of body['field_data']) {
    if (!isRecord(entry) || typeof entry['name'] !== 'string') continue
    const name = entry['name']
    if (Object.hasOwn(flat, name)) continue
    const value = firstValue(entry['values'])
    if (value !== undefined) flat[name] = value
  }
  for (const name of Object.keys(body)) {
    if (name === 'field_data' || Object.hasOwn(flat, name)) continue
    flat[name] = body[name]
  }
  return flat
}

// Lead-ads send every answer as a list; the first non-empty entry is the answer.
function firstValue(values: unknown): unknown {
  if (!Array.isArray(values)) return values
  return values.find((value) => value !== null && value !== undefined && !(typeof value === 'string' && value.trim() === ''))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

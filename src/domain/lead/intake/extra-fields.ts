/**
 * How much a lead may carry in fields Leadline does not recognise (spec §2.1 rule 2: kept as
 * received). Everything a lead holds is returned by the tools and held in memory while it is
 * decided on, so the extra fields are bounded: at most MAX_EXTRA_FIELDS_BYTES of JSON per lead.
 *
 * - One submission keeps its extra fields in the order sent while they fit; the rest are dropped,
 *   and the sender is warned (`extra_fields_dropped`).
 * - A lead keeps the latest value of each name; when later submissions bring more than fits, the
 *   names least recently sent are dropped first.
 */

export type ExtraField = { readonly name: string; readonly value: unknown }

export const MAX_EXTRA_FIELDS_BYTES = 16 * 1024

/** The field's bytes as the tools write it: `"name":value` in a JSON object. */
export function extraFieldBytes(field: ExtraField): number {
  return Buffer.byteLength(JSON.stringify(field.name), 'utf8') + 1 + Buffer.byteLength(JSON.stringify(field.value) ?? 'null', 'utf8')
}

/** One submission's extra fields: the first ones that fit in the bound, and the names of those that did not. */
export function boundExtraFields(fields: readonly ExtraField[]): { kept: ExtraField[]; dropped: string[] } {
  const kept: ExtraField[] = []
  const dropped: string[] = []
  let bytes = 0
  for (const field of fields) {
    const size = extraFieldBytes(field) + 1
    if (bytes + size > MAX_EXTRA_FIELDS_BYTES) {
      dropped.push(field.name)
      continue
    }
    kept.push(field)
    bytes += size
  }
  return { kept, dropped }
}

/**
 * A lead's extra fields after a submission's: the latest value of each name, the names sent last at
 * the end, and the least recently sent dropped first while they pass the bound.
 */
export function mergeExtraFields(current: readonly ExtraField[], incoming: readonly ExtraField[]): ExtraField[] {
  if (incoming.length === 0 && current.length === 0) return []
  const sent = new Set(incoming.map((field) => field.name))
  const merged = [...current.filter((field) => !sent.has(field.name)), ...incoming]
  let bytes = merged.reduce((sum, field) => sum + extraFieldBytes(field) + 1, 0)
  let first = 0
  while (bytes > MAX_EXTRA_FIELDS_BYTES && first < merged.length) {
    bytes -= extraFieldBytes(merged[first] as ExtraField) + 1
    first++
  }
  return first === 0 ? merged : merged.slice(first)
}

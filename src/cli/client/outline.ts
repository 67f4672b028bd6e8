/**
 * Any tool's output, readably: nested members as indented `name: value` lines, list items as `- `.
 * For `leadline tool`, which knows nothing of the tool it calls. Names and values alike go through
 * shown() (printable()): a lead's fields and extra-field names come from webhook senders.
 */
import { shown } from '../cli-io.ts'

const isScalar = (value: unknown): boolean => value === null || typeof value !== 'object'
const scalar = (value: unknown): string => (value === null ? 'null' : shown(value))

function isEmpty(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0
}

/** The lines of `value`, each starting with `indent`. */
function lines(value: unknown, indent: string): string[] {
  if (isScalar(value)) return [`${indent}${scalar(value)}`]
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (isScalar(item) || isEmpty(item as object)) return [`${indent}- ${isScalar(item) ? scalar(item) : JSON.stringify(item)}`]
      const [first, ...rest] = lines(item, `${indent}  `)
      return [`${indent}- ${(first as string).slice(indent.length + 2)}`, ...rest]
    })
  }
  return Object.entries(value as Record<string, unknown>).flatMap(([name, member]) => {
    const label = `${indent}${shown(name)}:`
    if (isScalar(member)) return [`${label} ${scalar(member)}`]
    if (isEmpty(member as object)) return [`${label} ${Array.isArray(member) ? '[]' : '{}'}`]
    return [label, ...lines(member, `${indent}  `)]
  })
}

export function outline(value: unknown): string {
  return lines(value, '').join('\n')
}

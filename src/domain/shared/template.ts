/**
 * The account's message templates (the pay-link text, the voicemail): `{name}` placeholders from a
 * fixed list, filled in one pass, so a value that looks like a placeholder stays as written.
 */

const PLACEHOLDER = /\{([^{}]*)\}/g

/** Why a template cannot be used (empty, too long, an unknown placeholder), or null when it can. */
export function templateProblem(template: string, placeholders: readonly string[], max: number): string | null {
  if (template.trim() === '') return 'must not be empty'
  if (template.length > max) return `must be at most ${max} characters`
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    if (!placeholders.includes(name as string)) return `unknown placeholder {${name as string}} (use ${placeholders.map((p) => `{${p}}`).join(', ')})`
  }
  return null
}

/** The template with every known placeholder filled; unknown ones stay as written. */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? (values[name] as string) : whole))
}

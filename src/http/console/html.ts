/**
 * HTML for the console, built from template literals that escape every value by default: only
 * markup wrapped in `Html` (what `html` returns, or `raw`) goes in as it is. Lead data comes from
 * outside (web forms, lead-ads tools), so nothing it holds may become markup.
 */
import { escapeHtml } from '../escape-html.ts'

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('')
  return escapeHtml(String(value))
}

/** `html\`<p>${name}</p>\``: values escaped, nested `Html` kept, arrays joined, null/false dropped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? ''
  for (let i = 0; i < values.length; i++) out += render(values[i] as HtmlValue) + (strings[i + 1] ?? '')
  return new Html(out)
}

/** Markup we wrote ourselves, trusted as it is. */
export function raw(text: string): Html {
  return new Html(text)
}

/**
 * The text a customer receives with a pay-link: the account's template with `{business}`,
 * `{description}`, `{amount}` and `{link}` filled in, and amounts written in the currency's own
 * format ("$125.00"), and the opt-out line every text Leadline sends ends with. Amounts are always in
 * the currency's smallest unit (cents for usd).
 */
import { fillTemplate, templateProblem } from '../shared/template.ts'
import { withOptOutLine } from '../lead/texts/text-body.ts'

export const DEFAULT_PAY_LINK_TEMPLATE = '{business}: {description}, {amount}. Pay securely by card here: {link}'
export const PAY_LINK_PLACEHOLDERS = ['business', 'description', 'amount', 'link'] as const
export const MAX_PAY_LINK_TEMPLATE = 320
export const DEFAULT_CURRENCY = 'usd'

/** Why a template cannot be used, or null when it can. */
export function payLinkTemplateProblem(template: string): string | null {
  const problem = templateProblem(template, PAY_LINK_PLACEHOLDERS, MAX_PAY_LINK_TEMPLATE)
  if (problem !== null) return problem
  if (!template.includes('{link}')) return 'must contain {link}, or the customer cannot pay'
  return null
}

const currencies = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()))

/** An ISO 4217 code this runtime can format (lower case, as Stripe writes them). */
export function isSupportedCurrency(currency: string): boolean {
  return /^[a-z]{3}$/.test(currency) && currencies.has(currency)
}

/** `12500, 'usd'` → `$125.00`; `5000, 'jpy'` → `¥5,000` (zero-decimal currencies have no minor unit). */
export function formatAmount(amountCents: number, currency: string): string {
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() })
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2
  return format.format(amountCents / 10 ** digits)
}

export interface PayLinkTextValues {
  readonly business: string
  readonly description: string
  readonly amount: string
  readonly link: string
}

/**
 * The text as it goes out: the template with every placeholder filled (in one pass: a value that
 * looks like a placeholder stays as written), ending with the opt-out line unless its last line is one.
 */
export function renderPayLinkText(template: string, values: PayLinkTextValues): string {
  return withOptOutLine(fillTemplate(template, { ...values }))
}

/**
 * A full name's first and last names, for a lead sent with only the full name. The first name is
 * what an assistant greets a person by, so a title (`Mr John Smith`) or the last-name-first form of
 * CRM exports (`Doe, Jane`) must not become it. Titles, suffixes and that form are humanparser's;
 * what is ours is the rule for the rest: everything after the first name is the last name (`José
 * García López` is García López; `Mary Ann Smith`, Ann Smith), as intake always split it.
 */
import humanparser from 'humanparser'

export interface NameParts {
  readonly first: string
  readonly last: string | undefined
}

// Two plain words split the same either way; the parser is asked only when a name has a comma, a
// period or a third word, since parsing costs far more than a split.
const NEEDS_PARSER = /[,.]|\S\s+\S+\s+\S/
const CONJUNCTION = /^(?:and|&|or|\+)$/i

/** Splits a single-spaced full name into first and last (last undefined for one word). */
export function splitFullName(fullName: string): NameParts {
  if (!NEEDS_PARSER.test(fullName)) return firstWordAndRest(fullName)
  const parsed = humanparser.parseName(fullName)
  const first = parsed.firstName?.trim() ?? ''
  // A name the parser cannot place (`Smith,`, a lone title, a couple's `Mr. and Mrs. Smith`) keeps the plain split.
  if (first === '' || first.includes(',') || CONJUNCTION.test(first)) return firstWordAndRest(fullName)
  // `Doe, Jane Q.`: the last name is what came before the comma; otherwise the rest after the first name.
  const lastNameFirst = fullName.includes(',') && fullName.indexOf(',') < fullName.indexOf(first)
  const parts = lastNameFirst ? [parsed.lastName, parsed.suffix] : [parsed.middleName, parsed.lastName, parsed.suffix]
  const last = parts.map((part) => part?.trim()).filter((part) => part !== undefined && part !== '').join(' ')
  return { first, last: last === '' ? undefined : last }
}

/** The full name a first and a last name make (either may be missing). */
export function joinName(first: string | undefined, last: string | undefined): string | undefined {
  if (first === undefined) return last
  return last === undefined ? first : `${first} ${last}`
}

function firstWordAndRest(fullName: string): NameParts {
  const space = fullName.indexOf(' ')
  return space < 0 ? { first: fullName, last: undefined } : { first: fullName.slice(0, space), last: fullName.slice(space + 1) }
}

/**
 * Whether a lead's stored name forms agree: the full name is the first and last joined, or they are
 * what the full name splits into (`Mr John Smith`: John, Smith). Forms that agree follow each other
 * on an update (lead.decider.ts); forms sent apart (`Bob Smith`, first name Robert) do not.
 */
export function namesAgree(fullName: string | undefined, firstName: string | undefined, lastName: string | undefined): boolean {
  if (fullName === joinName(firstName, lastName)) return true
  if (fullName === undefined || firstName === undefined) return false
  const split = splitFullName(fullName)
  return split.first === firstName && split.last === lastName
}

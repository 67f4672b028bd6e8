/**
 * GitHub-style heading ids, so an anchor written against the repository's rendering of `docs/`
 * (`webhook.md#status-codes`) is the same anchor on the served page.
 */

// What github-slugger removes: everything but letters, marks, numbers, connector punctuation
// (the underscore), hyphens and spaces.
const NOT_SLUG = /[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu

/** The slug of one heading's plain text: lowercased, punctuation dropped, spaces to hyphens. */
export function githubSlug(text: string): string {
  return text.trim().toLowerCase().replace(NOT_SLUG, '').replace(/ /g, '-')
}

/** A slugger for one page: a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function createSlugger(): (text: string) => string {
  const seen = new Map<string, number>()
  return (text) => {
    const base = githubSlug(text)
    let slug = base
    let count = seen.get(base) ?? 0
    while (seen.has(slug)) slug = `${base}-${++count}`
    seen.set(base, count)
    seen.set(slug, 0)
    return slug
  }
}

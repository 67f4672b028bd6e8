/**
 * The console's route schemas. Its routes are pages for people, so they stay out of /docs/openapi.json, but
 * they are validated like every route: query parameters and form fields are text (a name sent twice: a list),
 * ids are path segments. Handlers read the fields they know and ignore the rest, as forms allow.
 */
import { z } from 'zod'
import { formFields, PAGE_FOR_PEOPLE } from '../route-schemas.ts'

const text = z.union([z.string(), z.array(z.string())]).optional()

const segments = (names: readonly string[]) => z.object(Object.fromEntries(names.map((name) => [name, z.string()])))

/** A page; `query` names the query parameters it reads. */
export function consolePage(...query: string[]) {
  return query.length === 0 ? PAGE_FOR_PEOPLE : { ...PAGE_FOR_PEOPLE, querystring: z.looseObject(Object.fromEntries(query.map((name) => [name, text]))) }
}

/** A page of one thing, named by the path's `params`. */
export function consoleItem(...params: string[]) {
  return { ...PAGE_FOR_PEOPLE, params: segments(params) }
}

/** A form post (an empty one too: a button), to a path with `params`. */
export function consoleForm(...params: string[]) {
  return { ...PAGE_FOR_PEOPLE, ...(params.length === 0 ? {} : { params: segments(params) }), body: formFields.optional() }
}
